"""The invoice pack's printed words per language (:attr:`Jurisdiction.language`)."""

from __future__ import annotations

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "invoice": "Invoice", "INVOICE": "INVOICE", "receipt": "Invoice / Receipt",
        "invoice_number": "Invoice no.", "issue_date": "Invoice date", "due_date": "Due date",
        "po_number": "PO number", "bill_to": "Bill to", "from": "From", "sku": "SKU",
        "description": "Description", "quantity": "Qty", "unit": "Unit",
        "unit_price": "Unit price", "discount": "Disc.", "amount": "Amount",
        "subtotal": "Subtotal", "discount_total": "Discounts included", "total": "Total due",
        "tax_id": "Tax ID", "phone": "Phone", "email": "Email", "bank": "Payment details",
        "iban": "IBAN", "bic": "BIC", "account": "Account", "page": "Page", "of": "of",
        "continued": "continued", "terms": "Payment due within {days} days of the invoice date.",
        "thanks": "Thank you for your business.", "on": "on",
    },
    "fr": {
        "invoice": "Facture", "INVOICE": "FACTURE", "receipt": "Facture / Reçu",
        "invoice_number": "Facture n°", "issue_date": "Date de facture",
        "due_date": "Date d'échéance", "po_number": "Bon de commande", "bill_to": "Facturé à",
        "from": "Émetteur", "sku": "Réf.", "description": "Désignation",
        "quantity": "Qté", "unit": "Unité", "unit_price": "Prix unitaire HT",
        "discount": "Remise", "amount": "Montant HT", "subtotal": "Total HT",
        "discount_total": "Remises incluses", "total": "Total TTC",
        "tax_id": "N° TVA intracom.", "phone": "Tél.", "email": "E-mail",
        "bank": "Coordonnées bancaires", "iban": "IBAN", "bic": "BIC", "account": "Compte",
        "page": "Page", "of": "sur", "continued": "suite",
        "terms": "Paiement à {days} jours à compter de la date de facture.",
        "thanks": "Merci de votre confiance.", "on": "sur",
    },
    "de": {
        "invoice": "Rechnung", "INVOICE": "RECHNUNG", "receipt": "Rechnung / Quittung",
        "invoice_number": "Rechnungsnr.", "issue_date": "Rechnungsdatum",
        "due_date": "Fällig am", "po_number": "Bestellnr.", "bill_to": "Rechnungsempfänger",
        "from": "Absender", "sku": "Art.-Nr.", "description": "Bezeichnung",
        "quantity": "Menge", "unit": "Einheit", "unit_price": "Einzelpreis",
        "discount": "Rabatt", "amount": "Betrag netto", "subtotal": "Zwischensumme netto",
        "discount_total": "Enthaltene Rabatte", "total": "Gesamtbetrag",
        "tax_id": "USt-IdNr.", "phone": "Tel.", "email": "E-Mail", "bank": "Bankverbindung",
        "iban": "IBAN", "bic": "BIC", "account": "Konto", "page": "Seite", "of": "von",
        "continued": "Fortsetzung",
        "terms": "Zahlbar innerhalb von {days} Tagen ab Rechnungsdatum.",
        "thanks": "Vielen Dank für Ihren Auftrag.", "on": "auf",
    },
    "ja": {
        "invoice": "請求書", "INVOICE": "請求書", "receipt": "請求書 兼 領収書",
        "invoice_number": "請求書番号", "issue_date": "請求日", "due_date": "お支払期限",
        "po_number": "注文番号", "bill_to": "請求先", "from": "発行元", "sku": "品番",
        "description": "品名", "quantity": "数量", "unit": "単位", "unit_price": "単価",
        "discount": "値引", "amount": "金額", "subtotal": "小計（税抜）",  # noqa: RUF001
        "discount_total": "値引額（小計に含む）", "total": "ご請求金額（税込）",  # noqa: RUF001
        "tax_id": "登録番号", "phone": "電話", "email": "メール", "bank": "お振込先",
        "iban": "IBAN", "bic": "BIC", "account": "口座", "page": "ページ", "of": "/",
        "continued": "続き", "terms": "請求日から{days}日以内にお支払いください。",
        "thanks": "毎度ありがとうございます。", "on": "対象",
        "credit_note": "返金伝票", "original_invoice": "元請求書番号",
        "reason": "理由", "fx_rate": "換算レート", "fx_total": "換算合計",
    },
    "ar": {
        "invoice": "فاتورة ضريبية Tax Invoice", "INVOICE": "فاتورة ضريبية TAX INVOICE",
        "receipt": "فاتورة ضريبية مبسطة",
        "invoice_number": "رقم الفاتورة No.", "issue_date": "التاريخ Date",
        "due_date": "الاستحقاق Due", "po_number": "أمر الشراء",
        "bill_to": "العميل Customer", "from": "المورد Supplier", "sku": "الرمز",
        "description": "الوصف Description", "quantity": "الكمية", "unit": "الوحدة",
        "unit_price": "السعر", "discount": "خصم", "amount": "المبلغ",
        "subtotal": "المجموع Subtotal",
        "discount_total": "الخصومات", "total": "الإجمالي Total",
        "tax_id": "الرقم الضريبي", "phone": "هاتف", "email": "بريد",
        "bank": "الحساب البنكي", "iban": "IBAN", "bic": "BIC", "account": "الحساب",
        "page": "صفحة Page", "of": "/", "continued": "تابع",
        "terms": "يستحق الدفع خلال {days} يوم من تاريخ الفاتورة.",
        "thanks": "نشكر لكم تعاملكم معنا.", "on": "على",
        "credit_note": "إشعار دائن Credit Note", "original_invoice": "الفاتورة الأصلية Ref.",
        "reason": "السبب Reason", "fx_rate": "سعر الصرف Rate", "fx_total": "المعادل Equivalent",
    },
}
LABELS["en"].update({
    "credit_note": "Credit note", "original_invoice": "Original invoice", "reason": "Reason",
    "fx_rate": "Exchange rate", "fx_total": "Equivalent",
})
LABELS["fr"].update({
    "credit_note": "Avoir", "original_invoice": "Facture d'origine", "reason": "Motif",
    "fx_rate": "Taux de change", "fx_total": "Contre-valeur",
})
LABELS["de"].update({
    "credit_note": "Gutschrift", "original_invoice": "Ursprungsrechnung", "reason": "Grund",
    "fx_rate": "Wechselkurs", "fx_total": "Gegenwert",
})
# content 2 (the tax total row, the account summary): words of their own, unused before
for _lang, _words in {
    "en": {"instalment": "Instalment", "contract_value": "Contract value",
           "amount_due_head": "Amount due",
           "tax_total": "Total tax", "previous_balance": "Previous balance",
           "payments_received": "Payments received", "account_balance": "Total outstanding"},
    "fr": {"instalment": "Échéance n°", "contract_value": "Montant du contrat",
           "amount_due_head": "Montant dû",
           "tax_total": "Total TVA", "previous_balance": "Solde précédent",
           "payments_received": "Règlements reçus", "account_balance": "Total restant dû"},
    "de": {"instalment": "Rate", "contract_value": "Vertragswert",
           "amount_due_head": "Zu zahlen",
           "tax_total": "Summe USt.", "previous_balance": "Vorheriger Saldo",
           "payments_received": "Zahlungseingänge", "account_balance": "Offener Gesamtbetrag"},
    "ja": {"instalment": "分割回数", "contract_value": "契約総額",
           "amount_due_head": "ご請求金額",
           "tax_total": "消費税合計", "previous_balance": "前回ご請求額",
           "payments_received": "ご入金額", "account_balance": "ご請求残高合計"},
    "ar": {"instalment": "القسط", "contract_value": "قيمة العقد",
           "amount_due_head": "المبلغ المستحق",
           "tax_total": "إجمالي الضريبة", "previous_balance": "الرصيد السابق",
           "payments_received": "المدفوعات المستلمة", "account_balance": "إجمالي المستحق"},
}.items():
    LABELS[_lang].update(_words)
