/**
 * Words around an amount in price text: the labels before it ("was", "save", "from") and after it
 * ("/kg", "per month", "inc VAT") that give it its role, ranges, and "Free" as an amount.
 */
import type { PriceRole } from './price-text-types.ts';

function words(alternatives: string[]): string {
  return alternatives.map((word) => word.replace(/[.+$]/g, (c) => `\\${c}`).replace(/ /g, '\\s*')).join('|');
}

/** Short words that are labels only right before the amount: "De R$ 199,90 por R$ 149,90". */
function rightBefore(alternatives: string[], openingText = false): string {
  return `${openingText ? '(?<=^[^\\p{L}\\d]*)' : ''}(?:${alternatives.join('|')})(?=\\s*$)`;
}

/** A tax-inclusive label: the price, and the consumer price when an ex-tax one is shown too. */
export type Label = PriceRole | 'incl-tax';

const TAXES = 'vat|tax|taxes|gst|hst|mwst|ust|btw|tva|iva|moms|mva|alv|dph|áfa|afa|pvm|kdv|ндс|пдв|φπα|ддс|pdv|ppn';

/** A label before an amount: the last label with no digit between it and the amount. */
const PREFIX_LABELS: [Label, RegExp][] = (
  [
    [
      'price',
      `${words(['now', 'sale', 'sale price', 'our price', 'price', 'your price', 'special price', 'offer price', 'current price', 'deal price', 'from', 'only', 'just', 'today', 'jetzt', 'nur', 'ab', 'preis', 'aktionspreis', 'angebot', 'sonderpreis', 'maintenant', 'prix', 'prix promo', 'à partir de', 'a partir de', 'dès', 'desde', 'ahora', 'precio', 'oferta', 'precio final', 'preço', 'adesso', 'ora', 'prezzo', 'cena', 'teraz', 'pris', 'nu', 'vanaf', 'prijs', 'fiyat', 'цена', 'ціна', 'hinta', 'баға', 'qiymət', 'qiymeti', 'narx', 'narxi', 'нарх', 'баа', 'τιμή', 'מחיר', 'السعر', 'سعر', 'قیمت', 'कीमत', 'मूल्य', 'ราคา', 'giá', 'harga', 'presyo', 'ár', 'verð', 'preț', 'pret', 'cijena', 'çmimi', 'kaina', 'hind', 'ფასი', 'գին', 'үнэ', '価格', '販売価格', '特価', '价格', '價格', '售价', '特價', '特价', '直購價', '優惠價', '优惠价', '가격', '판매가', '할인가', '현재가', 'current bid', 'winning bid', 'high bid', 'highest bid', 'sold for', 'hammer price', 'aktuelles gebot', 'höchstgebot', 'enchère actuelle', 'offre actuelle', 'puja actual', 'offerta attuale'])}|${rightBefore(['por', 'voor'])}`,
    ],
    ['incl-tax', `${words(['incl. vat', 'incl vat', 'inc vat', 'inc. vat', 'including vat', 'inkl. mwst.', 'inkl. mwst', 'inkl mwst', 'incl. btw', 'ttc'])}`],
    [
      'regular',
      words([
        'regular price',
        'regular',
        'reg.',
        'reg',
        'list price',
        'list',
        'normal price',
        'normalpreis',
        'standard price',
        'prix normal',
        'precio normal',
        'precio regular',
        'normalpris',
        'ordinarie pris',
        'ord. pris',
        '通常価格',
      ]),
    ],
    [
      'was',
      `${words(['was', 'were', 'previously', 'prev.', 'before', 'old price', 'original price', 'originally', 'rrp', 'srp', 'msrp', 'uvp', 'compare at', 'compare-at', 'compared at', 'compare', 'instead of', 'statt', 'anstatt', 'vorher', 'bisher', 'ehemals', 'alter preis', 'streichpreis', 'avant', 'au lieu de', 'ancien prix', 'prix barré', 'prix initial', 'prix conseillé', 'antes', 'precio anterior', 'precio original', 'pvp', 'preço original', 'prima', 'era', 'invece di', 'prezzo consigliato', 'stara cena', 'poprzednia cena', 'старая цена', 'было', 'eski fiyat', 'önceki fiyat', 'før', 'förr', 'tidligere', 'aiemmin', 'retail price', 'retail', 'typical price', 'usual price', 'normally', 'value', 'worth', 'high street price', '定価', '参考価格', '希望小売価格', '原价', '原價', '정가', '소비자가', '소비자가격', '시중가', '市场价', '市場價', '建議售價', '建议售价', '市價', '定價'])}|${rightBefore(['de', 'van'], true)}|(?:lowest|niedrigster|prix le plus bas|najniższa|laagste|precio más bajo|prezzo più basso|nejnižší|legalacsonyabb|lägsta|laveste|alhaisin)[^\\d]{0,50}?\\d{1,3}\\s*(?:days|tage[n]?|jours|dni|días|dias|giorni|dagen|dagar|dage|dní|nap|zile|päivän)\\p{L}*`,
    ],
    [
      'saving',
      words([
        'save',
        'you save',
        'saving',
        'savings',
        'discount',
        'reduced by',
        'sparen',
        'sie sparen',
        'ersparnis',
        'économisez',
        'economisez',
        'ahorra',
        'ahorras',
        'ahorro',
        'risparmi',
        'risparmia',
        'bespaar',
        'oszczędzasz',
        'economize',
        '적립금',
        'ポイント',
        '积分',
      ]),
    ],
    [
      'instalment',
      `${words(['payments of', 'payment of', 'instalments of', 'installments of', 'instalments', 'installments', 'interest-free', 'interest free', 'monthly payments', 'klarna', 'afterpay', 'clearpay', 'affirm', 'laybuy', 'sezzle', 'paypal', 'ratenzahlung', 'raten', 'rate da', 'cuotas de', 'mensualités de', 'parcelas de', '每期', '分期'])}|pay\\s*in\\s*\\d+|en\\s*\\d+\\s*fois|\\d{1,2}\\s*x(?:\\s*de)?`,
    ],
    [
      'shipping',
      words([
        'shipping',
        'delivery',
        'postage',
        'p&p',
        'p+p',
        'freight',
        'carriage',
        'versand',
        'versandkosten',
        'lieferung',
        'livraison',
        'frais de port',
        'envío',
        'envio',
        'entrega',
        'frete',
        'spedizione',
        'consegna',
        'porto',
        'verzending',
        'verzendkosten',
        'bezorging',
        'frakt',
        'fragt',
        'leverans',
        'toimitus',
        'wysyłka',
        'dostawa',
        'dostava',
        'doprava',
        'szállítás',
        'kargo',
        'доставка',
        '送料',
        '配送料',
        '运费',
        '運費',
        '배송비',
      ]),
    ],
    [
      'estimate',
      words([
        'estimate',
        'estimated',
        'est.',
        'auction estimate',
        'schätzpreis',
        'schätzung',
        'estimation',
        'estimación',
        'stima',
        'taxatie',
        'szacunek',
        'оценка',
      ]),
    ],
    ['threshold', words(['over', 'above', 'orders over', 'orders of', 'spend', 'when you spend', 'minimum', 'minimum order', 'min.'])],
    ['multibuy', `\\d+\\s*(?:for|für|pour)|any\\s*\\d+\\s*for|buy\\s*\\d+`],
    [
      'unit',
      `${words(['unit price', 'price per', 'per', 'grundpreis', 'prix au kilo', 'prix au kg', 'prix au litre', 'prix unitaire', 'precio por', 'precio unitario', 'prezzo al kg', 'prezzo unitario', 'jämförpris', 'kilopris', 'literpris'])}|per\\s*\\d+\\s*\\p{L}+`,
    ],
    [
      'excl-tax',
      `(?:ex|exc|excl|excluding|exclusive of|zzgl|ohne|plus|hors|sans|sin|bez|exkl|ekskl|before)\\.?\\s*(?:${TAXES})|${words(['net', 'netto', 'net price'])}`,
    ],
  ] as [Label, string][]
).map(([role, alternatives]) => [role, new RegExp(`(?<![\\p{L}\\d])(?:${alternatives})(?!\\p{L})(?=\\D*$)`, 'giu')]);

const UNITS =
  'kg|kilo|kilogram|g|gr|gram|grams|mg|lb|lbs|oz|fl\\.?\\s?oz|l|ltr|litre|liter|litres|liters|ml|cl|dl|m|cm|mm|m2|m²|m3|m³|' +
  'sq\\.?\\s?ft|ft|yd|unit|units|item|items|piece|pieces|pc|pcs|stk|stück|st|count|ct|sheet|sheets|wash|washes|dose|doses|' +
  'tablet|tablets|capsule|capsules|serving|servings|kilo';
const PERIODS = 'month|months|mo|mth|mnth|week|wk|year|yr|annum|day|monat|mois|mes|mese';

/** Words right after an amount that belong to it. `null` role: belongs to it, changes nothing. */
const SUFFIXES: [Label | null, RegExp][] = (
  [
    ['unit', `(?:/|per\\b|pro\\b|par\\b|le\\b|la\\b|au\\b)\\s*(?:\\d+(?:[.,]\\d+)?\\s*)?(?:${UNITS})\\.?(?!\\p{L})|(?:each|ea|apiece)\\b`],
    ['period', `(?:/|per\\s|a\\s|an\\s|every\\s)\\s*(?:${PERIODS})\\.?(?!\\p{L})|(?:monthly|p/m|pcm|pm)(?!\\p{L})`],
    [
      'excl-tax',
      `(?:ex|exc|excl|excluding|zzgl|ohne|plus|\\+|hors|sans|sin|bez|exkl|ekskl|before)\\.?\\s*(?:${TAXES})\\.?(?!\\p{L})|(?:HT|net|netto)(?!\\p{L})|税抜|税別|不含税`,
    ],
    [
      'incl-tax',
      `(?:inc|incl|including|inkl|inklusive|incluido|incluye|inclusief|con|avec|mit|med|z|s)\\.?\\s*(?:${TAXES})\\.?(?!\\p{L})|(?:${TAXES})\\.?\\s*(?:inc|incl|included|incluido|incluida|inkl|inclusa|incluse|comprise|compris)\\.?(?!\\p{L})|(?:TTC|brutto)(?!\\p{L})|税込み?|含税`,
    ],
    ['saving', `off(?!\\p{L})`],
  ] as [Label | null, string][]
).map(([role, pattern]) => [role, new RegExp(`^[\\s(*（]*(?:${pattern})[)）]?`, 'iu')]);

/** Labels that follow an amount only at the end of the text ("£30 RRP", "+ £3.99 delivery"). */
const TAIL_SUFFIXES: [PriceRole, RegExp][] = (
  [
    ['was', 'rrp|uvp|msrp|srp|was|list'],
    ['shipping', 'shipping|delivery|postage|p&p|versand|livraison'],
  ] as [PriceRole, string][]
).map(([role, pattern]) => [role, new RegExp(`^[\\s(*]*(?:${pattern})(?!\\p{L})`, 'iu')]);

/** What follows a bare number that counts things rather than money. */
export const NOT_MONEY_AFTER = new RegExp(`^(?:\\p{L}| ?%| ?(?:${UNITS}|x|left|in stock|reviews?|ratings?|stars?|out of)(?!\\p{L}))`, 'iu');

export const RANGE_JOINER = /^\s*(?:-|–|—|to|bis|à|a|til|till|~|〜|～)\s*$/i;

/** "Free" as a price: alone, after a label ("Now FREE", "Delivery: Free"), never inside a phrase ("gluten free"). */
export const FREE_WORD =
  /(?<![\p{L}\p{M}\d-])(?:free|gratis|gratuit|gratuite|gratuito|gratuita|grátis|kostenlos|kostenlose|kostenloser|umsonst|бесплатно|бесплатная|безкоштовно|безкоштовна|ücretsiz|zdarma|darmowa|darmowy|besplatna|besplatno|ingyenes|δωρεάν|ilmainen)(?![\p{L}\p{M}-])|免费|免費|無料|무료/giu;
export const FREE_SHIPPING_AFTER =
  /^ ?(?:delivery|shipping|postage|p&p|returns?|uk delivery|standard delivery|next day delivery|click & collect|collection|versand|lieferung|livraison|envío|envio|entrega|spedizione|consegna|frete|verzending|bezorging|levering|frakt|fragt|leverans|toimitus|wysyłka|dostawa|dostava|doprava|szállítás|kargo|доставка|配送|送货|送貨|運送|配達|배송|택배)(?![\p{L}\p{M}])/iu;
export const FREE_CJK = /^[免無무]/u;

export function labelBefore(text: string): { role: Label; end: number } | null {
  const window = text.slice(-60);
  let best: { role: Label; end: number; length: number } | null = null;
  for (const [role, pattern] of PREFIX_LABELS) {
    for (const match of window.matchAll(pattern)) {
      const end = match.index + match[0].length;
      if (!best || end > best.end || (end === best.end && match[0].length > best.length)) {
        best = { role, end, length: match[0].length };
      }
    }
  }
  return best && { role: best.role, end: best.end + text.length - window.length };
}

export function labelAfter(text: string, atEnd: boolean): { role: Label | null; length: number } | null {
  for (const [role, pattern] of atEnd ? [...SUFFIXES, ...TAIL_SUFFIXES] : SUFFIXES) {
    const match = pattern.exec(text);
    // "(netto 1.037,00 €)": a label opening a parenthesis belongs to the amount inside it; "Ex Tax: $624" one before a colon too.
    if (match && !atEnd && (/[(（][^)）]*$/.test(match[0]) || /^\s*[:：]/.test(text.slice(match[0].length)))) return null;
    if (match) return { role, length: match[0].length };
  }
  return null;
}
