"""What bank statements print, as data (content version 2): for each language, the
variants real statements use for the keys beside their values, commonest first (the
version-1 word first). :func:`docfleet.packs.sdk.variation.vary_words` draws one per key
per document."""

from __future__ import annotations

from docfleet.packs.sdk.variation import PAGE_WORDS

VARIANTS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "note": ("Please check this statement and tell us of any discrepancy within 30 days.",
                 "Please check this statement carefully.",
                 "Contact us if you do not recognise a transaction.",
                 "Keep this statement for your records.",
                 "Report any error to your branch promptly.",
                 "Questions? Call us or visit your branch.",
                 "Deposits are protected up to the legal limit."),
        "statement_number": ("Statement no.", "Statement number", "Statement #", "No.",
                             "Sheet no.", "Statement", "Ref.", "Reference", "Document no.",
                             "Statement ref.", "Page set", "Stmt no.", "Statement ID"),
        "issue_date": ("Date of issue", "Statement date", "Date", "Issued", "Issue date",
                       "Printed on", "Produced on", "Date produced", "As of", "Dated",
                       "Statement Date", "Prepared on", "Generated"),
        "closing_balance": ("Closing balance", "New balance", "Ending balance",
                            "Balance at end of period", "Closing Balance", "Final balance",
                            "Balance carried forward", "Your balance", "End balance",
                            "Balance as of period end", "Current balance", "Balance",
                            "Statement balance"),
    },
    "fr": {
        "note": ("Merci de vérifier ce relevé et de signaler toute anomalie sous 30 jours.",
                 "Conservez ce relevé.",
                 "Signalez toute opération non reconnue à votre agence.",
                 "Pour toute question, contactez votre conseiller.",
                 "Vérifiez ce relevé dès réception.",
                 "Document à conserver sans limitation de durée."),
        "statement_number": ("Relevé n°", "N° de relevé", "Relevé", "Numéro", "N°",
                             "Extrait n°", "Réf.", "Référence", "Relevé numéro", "Extrait",
                             "N° d'extrait", "Document n°", "Feuillet n°"),
        "issue_date": ("Date d'édition", "Date", "Édité le", "Date du relevé", "Le",
                       "Date d'émission", "Émis le", "Arrêté au", "Au", "Établi le",
                       "Date d'arrêté", "Date de l'extrait", "Fait le"),
        "closing_balance": ("Solde final", "Nouveau solde", "Solde au", "Solde de clôture",
                            "Solde", "Solde créditeur", "Solde en fin de période",
                            "Solde à reporter", "Solde actuel", "Nouveau solde créditeur",
                            "Solde fin", "Solde du compte", "Solde arrêté"),
    },
    "de": {
        "note": ("Bitte prüfen Sie diesen Auszug; Einwendungen innerhalb von 6 Wochen.",
                 "Bitte bewahren Sie diesen Auszug auf.",
                 "Unbekannte Buchungen melden Sie bitte umgehend.",
                 "Fragen? Ihre Filiale hilft gern.",
                 "Bitte prüfen Sie die Buchungen.",
                 "Einwendungen bitte binnen 6 Wochen."),
        "statement_number": ("Auszug Nr.", "Kontoauszug Nr.", "Auszugsnummer", "Nr.",
                             "Auszug", "Blatt", "Kontoauszug", "Auszug-Nr.", "Referenz",
                             "Belegnr.", "Auszugs-Nr.", "Dokument-Nr.", "Blatt-Nr."),
        "issue_date": ("Erstellt am", "Datum", "Auszugsdatum", "Ausgestellt am", "Druckdatum",
                       "Vom", "Am", "Erstellungsdatum", "Stand", "Datum des Auszugs",
                       "Gedruckt am", "Ausgabedatum", "Per"),
        "closing_balance": ("Neuer Kontostand", "Neuer Saldo", "Endsaldo", "Kontostand",
                            "Saldo neu", "Schlusssaldo", "Kontostand am", "Saldo",
                            "Neuer Stand", "Endstand", "Saldo per", "Aktueller Kontostand",
                            "Kontostand neu"),
    },
    "ja": {
        "note": ("お取引内容をご確認のうえ、相違がございましたら30日以内にお申し出ください。",
                 "本明細書は大切に保管してください。",
                 "ご不明な点は窓口までお問い合わせください。",
                 "お心当たりのないお取引はお申し出ください。",
                 "内容をご確認ください。"),
        "statement_number": ("明細番号", "番号", "No.", "通知番号", "明細書番号", "発行番号",
                             "照会番号", "管理番号", "明細No.", "お取引明細番号", "書類番号",
                             "明細No", "整理番号"),
        "issue_date": ("発行日", "作成日", "日付", "発行年月日", "作成年月日", "お取引明細作成日",
                       "照会日", "発行日付", "印刷日", "基準日", "年月日", "出力日", "交付日"),
        "closing_balance": ("今回残高", "期末残高", "残高", "最終残高", "現在残高", "差引残高",
                            "期末時点残高",
                            "お預り残高", "残高合計", "締め後残高", "翌月繰越残高", "末日残高",
                            "期間末残高", "お取引後残高"),
    },
    "ar": {
        "note": ("يرجى مراجعة هذا الكشف وإبلاغنا بأي اختلاف خلال 30 يوم.",
                 "يرجى الاحتفاظ بهذا الكشف.",
                 "للاستفسار يرجى التواصل مع الفرع.",
                 "يرجى إبلاغنا بأي عملية غير معروفة.",
                 "يرجى مراجعة العمليات بعناية."),
        "statement_number": ("رقم الكشف", "كشف رقم", "Statement No.", "الرقم", "رقم",
                             "المرجع", "رقم المستند", "No.", "رقم كشف الحساب", "Ref.",
                             "الرقم المرجعي", "رقم الصفحة", "كشف"),
        "issue_date": ("تاريخ الإصدار", "التاريخ", "Date", "تاريخ الكشف", "Issue Date",
                       "بتاريخ", "صدر في", "تاريخ الطباعة", "تاريخ", "تاريخ الإصدار Date",
                       "تاريخ التحرير", "كما في", "تاريخ الإعداد"),
        "closing_balance": ("الرصيد الختامي Closing balance", "الرصيد الختامي", "الرصيد الجديد",
                            "الرصيد", "Closing Balance",
                            "رصيد الإقفال", "الرصيد النهائي", "الرصيد في نهاية الفترة",
                            "الرصيد الحالي", "رصيد آخر المدة", "الرصيد المرحل", "Balance",
                            "الرصيد الدائن"),
    },
}
for _lang, _words in PAGE_WORDS.items():  # the page numbers, shared
    VARIANTS.setdefault(_lang, {}).update(_words)

#: content 4: more notes real statements print (appended, the commonest stay first)
MORE_NOTES: dict[str, tuple[str, ...]] = {
    "en": ("Interest rates are shown on our website.",
           "Please tell us if your address changes.",
           "This statement is also available online."),
    "fr": ("Ce relevé est également disponible en ligne.",
           "Conservez ce document sans limitation de durée.",
           "Signalez tout changement d'adresse à votre conseiller."),
    "de": ("Dieser Auszug steht auch im Online-Banking bereit.",
           "Bitte teilen Sie uns Adressänderungen mit.",
           "Rechnungsabschlüsse gelten als genehmigt, wenn nicht widersprochen wird."),
    "ja": ("インターネットバンキングでもご確認いただけます。",
           "住所変更の際はお届けください。",
           "このお知らせは大切に保管してください。",
           "お取引内容に関するお問い合わせは取引店まで。"),
    "ar": ("يمكنكم الاطلاع على الكشف عبر الخدمات المصرفية الإلكترونية.",
           "يرجى إبلاغنا عند تغيير العنوان.",
           "هذا الكشف صادر إلكترونيا ولا يحتاج إلى توقيع."),
}
#: content 4's variant pools: version 2's with :data:`MORE_NOTES` appended to the notes
VARIANTS_V4: dict[str, dict[str, tuple[str, ...]]] = {
    lang: {**keys, "note": keys.get("note", ()) + MORE_NOTES.get(lang, ())}
    for lang, keys in VARIANTS.items()
}
