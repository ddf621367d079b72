"""What purchase orders print, as data (content version 2): for each language, the
variants real orders use for the keys beside their values, commonest first (the version-1
word first). :func:`docfleet.packs.sdk.variation.vary_words` draws one per key per
document."""

from __future__ import annotations

from docfleet.packs.sdk.variation import PAGE_WORDS

VARIANTS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "note": ("Please quote the PO number on every invoice and delivery note.",
                 "Quote our order number on all correspondence.",
                 "Deliver to the address above.",
                 "Please confirm receipt of this order.",
                 "Invoices without a PO number will be returned.",
                 "Goods must match the agreed specification.",
                 "Send invoices to accounts payable."),
        "po_number": ("PO number", "PO #", "P.O. No.", "Order no.", "Purchase order no.",
                      "Order number", "PO No.", "Order #", "Reference", "Our order no.",
                      "PO ref.", "Purchase order #", "Order ref."),
        "issue_date": ("Order date", "Date", "PO date", "Date of order", "Issued",
                       "Date issued", "Ordered on", "Order Date", "Dated", "Issue date",
                       "Created", "Raised on", "Document date"),
        "total": ("Order total", "Total", "Total amount", "Grand total", "Total value",
                  "PO total", "Order value", "Total order value", "Amount", "Total due",
                  "TOTAL", "Net total incl. tax", "Total (incl. tax)"),
    },
    "fr": {
        "note": ("Merci de rappeler le numéro de commande sur factures et bons de livraison.",
                 "Merci d'accuser réception de cette commande.",
                 "Livraison à l'adresse ci-dessus.",
                 "Toute facture sans numéro de commande sera retournée.",
                 "Rappeler la référence sur la facture."),
        "po_number": ("N° de commande", "Commande n°", "Bon de commande n°", "N° commande",
                      "Réf. commande", "Numéro de commande", "Commande", "N° BC", "Référence",
                      "Notre commande n°", "Bon n°", "BC n°", "Réf."),
        "issue_date": ("Date de commande", "Date", "Le", "Date du bon", "Émis le",
                       "Date d'émission", "Commandé le", "Fait le", "Date commande",
                       "En date du", "Date de la commande", "Établi le", "Date BC"),
        "total": ("Total TTC", "Montant TTC", "Total", "Montant total", "Total commande",
                  "Montant de la commande", "Total général", "Valeur totale", "Net à payer",
                  "TOTAL TTC", "Total à payer", "Montant", "Total bon de commande"),
    },
    "de": {
        "note": ("Bitte die Bestellnummer auf allen Rechnungen und Lieferscheinen angeben.",
                 "Bitte bestätigen Sie den Auftrag.",
                 "Lieferung an die oben genannte Adresse.",
                 "Rechnungen ohne Bestellnummer werden zurückgesandt.",
                 "Bitte Auftragsbestätigung senden."),
        "po_number": ("Bestellnr.", "Bestellnummer", "Bestellung Nr.", "Best.-Nr.",
                      "Auftragsnr.", "Bestell-Nr.", "Unsere Bestellnr.", "Nr.", "Referenz",
                      "Bestellung", "Auftrag", "Belegnr.", "Bestellreferenz"),
        "issue_date": ("Bestelldatum", "Datum", "Vom", "Bestellt am", "Ausgestellt am",
                       "Belegdatum", "Datum der Bestellung", "Erstellt am", "Am",
                       "Auftragsdatum", "Bestelldatum:", "Dokumentdatum", "Tag"),
        "total": ("Gesamtbetrag", "Summe", "Gesamtsumme", "Bestellwert", "Gesamt",
                  "Endbetrag", "Auftragswert", "Bruttobetrag", "Gesamt brutto", "Betrag",
                  "Summe brutto", "Total", "GESAMTBETRAG"),
    },
    "ja": {
        "note": ("請求書・納品書には必ず注文番号をご記入ください。",
                 "本注文書受領後、注文請書をご返送ください。",
                 "納期厳守でお願いいたします。",
                 "上記住所へ納品してください。",
                 "ご不明な点はご連絡ください。"),
        "po_number": ("注文番号", "発注番号", "注文書番号", "発注No.", "注文No.", "番号", "No.",
                      "発注書番号", "管理番号", "伝票番号", "注文書No", "発注No", "整理番号"),
        "issue_date": ("注文日", "発注日", "日付", "発行日", "作成日", "注文年月日", "発注年月日",
                       "年月日", "起票日", "発行年月日", "伝票日付", "ご注文日", "発注日付"),
        "total": ("合計金額（税込）", "合計金額", "合計", "総合計", "発注金額", "注文金額",  # noqa: RUF001
                  "税込合計", "総額", "ご注文金額", "発注総額", "合計（税込）", "金額合計",  # noqa: RUF001
                  "注文合計"),
    },
    "ar": {
        "note": ("يرجى ذكر رقم أمر الشراء في جميع الفواتير ومذكرات التسليم.",
                 "يرجى تأكيد استلام هذا الطلب.",
                 "التسليم على العنوان أعلاه.",
                 "يرجى الالتزام بموعد التسليم.",
                 "الفواتير بدون رقم الطلب لن تقبل."),
        "po_number": ("رقم أمر الشراء PO Number", "رقم أمر الشراء", "PO Number", "أمر شراء رقم",
                      "رقم الطلب", "رقم الطلبية", "المرجع", "رقم", "PO No.", "رقم المستند",
                      "الرقم المرجعي", "طلب رقم", "Order No."),
        "issue_date": ("تاريخ الطلب Date", "تاريخ الطلب", "التاريخ", "Date", "تاريخ الإصدار",
                       "تاريخ أمر الشراء", "Order Date", "بتاريخ", "صدر في", "تاريخ المستند",
                       "تاريخ", "تاريخ التحرير", "تاريخ الإصدار Date"),
        "total": ("إجمالي الطلب Total", "الإجمالي", "إجمالي الطلب", "المبلغ الإجمالي", "Total",
                  "قيمة الطلب", "الإجمالي شامل الضريبة", "المجموع الكلي", "Order Total",
                  "إجمالي أمر الشراء", "المبلغ الكلي", "الإجمالي Total", "إجمالي القيمة"),
    },
}
for _lang, _words in PAGE_WORDS.items():  # the page numbers, shared
    VARIANTS.setdefault(_lang, {}).update(_words)

#: content 3: more variants real orders print (appended, so a key's commonest stay first)
MORE_VARIANTS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {"po_number": ("PO", "Order No", "P.O. #", "Purchase Order Number"),
           "note": ("All deliveries must be accompanied by a delivery note.",
                    "Partial deliveries only by prior arrangement.",
                    "Our general terms and conditions of purchase apply.")},
    "fr": {"po_number": ("N° de bon", "Référence commande", "Numéro BC"),
           "note": ("Nos conditions générales d'achat s'appliquent.",
                    "Livraison partielle uniquement sur accord préalable.",
                    "Joindre un bon de livraison à chaque envoi.")},
    "de": {"po_number": ("Bestell-Nummer", "Auftragsnummer", "Bestellschein Nr."),
           "note": ("Es gelten unsere Allgemeinen Einkaufsbedingungen.",
                    "Teillieferungen nur nach Absprache.",
                    "Jeder Lieferung ist ein Lieferschein beizufügen.")},
    "ja": {"po_number": ("発注NO", "オーダーNo.", "注文書No.", "発注書NO"),
           "note": ("当社購買約款に基づき発注いたします。",
                    "分納の場合は事前にご連絡ください。",
                    "納品時には納品書を添付してください。",
                    "検収後のお支払いとなります。"),
           "page": ("ページ番号", "Page No.")},
    "ar": {"po_number": ("رقم الأمر", "أمر شراء", "PO #", "Purchase Order No."),
           "note": ("تطبق شروط الشراء العامة لدينا.",
                    "لا يسمح بالتسليم الجزئي إلا بالاتفاق المسبق.",
                    "يرجى إرفاق مذكرة التسليم مع كل شحنة.")},
}
#: content 3's variant pools: version 2's with :data:`MORE_VARIANTS` appended
VARIANTS_V3: dict[str, dict[str, tuple[str, ...]]] = {
    lang: {key: words + MORE_VARIANTS.get(lang, {}).get(key, ())
           for key, words in keys.items()}
    for lang, keys in VARIANTS.items()
}
