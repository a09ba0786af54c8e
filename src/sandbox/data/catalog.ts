// The vocabulary of the generated bank data: merchants with ISO 18245 category codes, payees and payers, and the
// ISO 20022 bank transaction codes (family / sub-family, as OBBankTransactionCodeStructure1 carries them, ≤ 4 chars in
// AIS v3.1.1) with the proprietary UK statement codes (DEB, DD, SO, FPO, FPI, BGC, CPT, ...) banks print next to them.

export interface Merchant {
  name: string;
  /** ISO 18245 merchant category code. */
  mcc: string;
  town: string;
  /** Amount range in pence. */
  min: number;
  max: number;
}

/** Everyday card spending (personal and joint current accounts). */
export const PERSONAL_MERCHANTS: readonly Merchant[] = [
  { name: 'TESCO STORES 2841', mcc: '5411', town: 'LONDON', min: 850, max: 9200 },
  { name: 'SAINSBURYS S/MKTS', mcc: '5411', town: 'LONDON', min: 620, max: 8800 },
  { name: 'WAITROSE 118', mcc: '5411', town: 'KINGSTON', min: 900, max: 7600 },
  { name: 'LIDL GB', mcc: '5411', town: 'CROYDON', min: 540, max: 6100 },
  { name: 'PRET A MANGER', mcc: '5814', town: 'LONDON', min: 295, max: 1150 },
  { name: 'COSTA COFFEE', mcc: '5814', town: 'WIMBLEDON', min: 260, max: 890 },
  { name: 'GREGGS', mcc: '5814', town: 'SUTTON', min: 185, max: 720 },
  { name: 'TFL TRAVEL CH', mcc: '4111', town: 'LONDON', min: 175, max: 1600 },
  { name: 'TRAINLINE', mcc: '4112', town: 'LONDON', min: 1240, max: 8900 },
  { name: 'SHELL KINGSTON', mcc: '5541', town: 'KINGSTON', min: 3000, max: 8400 },
  { name: 'AMAZON.CO.UK', mcc: '5942', town: 'LUXEMBOURG', min: 499, max: 6999 },
  { name: 'BOOTS 1123', mcc: '5912', town: 'LONDON', min: 350, max: 4200 },
  { name: 'JOHN LEWIS', mcc: '5311', town: 'LONDON', min: 1500, max: 24000 },
  { name: 'DELIVEROO', mcc: '5812', town: 'LONDON', min: 1450, max: 4800 },
  { name: 'WAGAMAMA', mcc: '5812', town: 'RICHMOND', min: 1800, max: 6200 },
  { name: 'SPOTIFY', mcc: '5815', town: 'STOCKHOLM', min: 1199, max: 1199 },
  { name: 'NETFLIX.COM', mcc: '4899', town: 'AMSTERDAM', min: 1099, max: 1099 },
  { name: 'CINEWORLD', mcc: '7832', town: 'WANDSWORTH', min: 1100, max: 3600 },
  { name: 'PUREGYM', mcc: '7997', town: 'LEEDS', min: 2499, max: 2499 },
  { name: 'ARGOS', mcc: '5399', town: 'CROYDON', min: 900, max: 15000 },
];

/** Card spending of a small joinery business. */
export const BUSINESS_MERCHANTS: readonly Merchant[] = [
  { name: 'TRAVIS PERKINS', mcc: '5211', town: 'CARDIFF', min: 2500, max: 85000 },
  { name: 'SCREWFIX DIRECT', mcc: '5251', town: 'YEOVIL', min: 800, max: 32000 },
  { name: 'HOWDENS JOINERY', mcc: '5211', town: 'NEWPORT', min: 4000, max: 120000 },
  { name: 'TOOLSTATION', mcc: '5251', town: 'BRIDGWATER', min: 600, max: 18000 },
  { name: 'BP CONNECT', mcc: '5541', town: 'CARDIFF', min: 4000, max: 11000 },
  { name: 'ESSO', mcc: '5541', town: 'BRIDGEND', min: 3500, max: 9500 },
  { name: 'MICROSOFT*365', mcc: '5734', town: 'DUBLIN', min: 1030, max: 1030 },
  { name: 'VIKING DIRECT', mcc: '5111', town: 'LEICESTER', min: 1200, max: 9000 },
  { name: 'GREGGS', mcc: '5814', town: 'CARDIFF', min: 185, max: 1450 },
  { name: 'NCP PARKING', mcc: '7523', town: 'CARDIFF', min: 350, max: 2400 },
];

export const UTILITIES: readonly { name: string; min: number; max: number }[] = [
  { name: 'BRITISH GAS', min: 6500, max: 14500 },
  { name: 'OCTOPUS ENERGY', min: 7000, max: 16000 },
  { name: 'THAMES WATER', min: 3200, max: 5400 },
  { name: 'VODAFONE LTD', min: 1800, max: 4500 },
  { name: 'VIRGIN MEDIA', min: 3500, max: 6800 },
  { name: 'LB WANDSWORTH CTAX', min: 12500, max: 16800 },
  { name: 'AVIVA INSURANCE', min: 2200, max: 6100 },
  { name: 'TV LICENCE MBP', min: 1412, max: 1412 },
];

export const BUSINESS_DIRECT_DEBITS: readonly { name: string; min: number; max: number }[] = [
  { name: 'HMRC VAT', min: 180000, max: 620000 },
  { name: 'CARDIFF CC NNDR', min: 21000, max: 38000 },
  { name: 'BT BUSINESS', min: 4800, max: 9600 },
  { name: 'HISCOX INSURANCE', min: 8800, max: 14500 },
  { name: 'LEX AUTOLEASE', min: 38900, max: 38900 },
  { name: 'NEST PENSIONS', min: 42000, max: 68000 },
];

export const PEOPLE: readonly string[] = [
  'J SMITH',
  'R KHAN',
  'L JONES',
  'M WILLIAMS',
  'A TAYLOR',
  'S BROWN',
  'E DAVIES',
  'P EVANS',
  'C WILSON',
  'H THOMAS',
  'D ROBERTS',
  'K JOHNSON',
  'N LEWIS',
  'O WALKER',
  'F HUGHES',
  'G GREEN',
  'T HALL',
  'B WOOD',
  'I CLARKE',
  'V PATEL',
];

export const BUSINESS_CUSTOMERS: readonly string[] = [
  'HARBOUR HOMES LTD',
  'CASTELL PROPERTIES',
  'PENARTH DEVELOPMENTS',
  'TAFF LETTINGS LTD',
  'BAY KITCHENS LTD',
  'MR & MRS OWEN',
  'DR S MORGAN',
  'VALE INTERIORS',
  'RHYDYPENAU SCHOOL PTA',
  'GLAN-YR-AFON HOUSING',
];

export const BUSINESS_SUPPLIERS: readonly string[] = [
  'JEWSON LTD',
  'MKM BUILDING SUPPLIES',
  'SOUTH WALES TIMBER',
  'IRONMONGERY DIRECT',
  'BRADFORDS BUILDING',
  'CARDIFF SKIP HIRE',
  'WELSH WATER',
  'A1 ELECTRICAL SERVICES',
];

export const EMPLOYERS: readonly string[] = ['NORTHWIND TRADING LTD', 'CONTOSO HEALTH NHS FT', 'FABRIKAM CONSULTING'];

/** ISO 20022 family / sub-family pairs (OBIE BankTransactionCode) with the proprietary statement code. */
export const CODES = {
  cardPurchase: { code: 'CCRD', subCode: 'POSD', proprietary: 'DEB' },
  cardRefund: { code: 'CCRD', subCode: 'RIMB', proprietary: 'DEB' },
  cashWithdrawal: { code: 'CCRD', subCode: 'CWDL', proprietary: 'CPT' },
  directDebit: { code: 'RDDT', subCode: 'PMDD', proprietary: 'DD' },
  standingOrder: { code: 'ICDT', subCode: 'STDO', proprietary: 'SO' },
  paymentOut: { code: 'ICDT', subCode: 'DMCT', proprietary: 'FPO' },
  paymentIn: { code: 'RCDT', subCode: 'DMCT', proprietary: 'FPI' },
  salary: { code: 'RCDT', subCode: 'SALA', proprietary: 'BGC' },
  payroll: { code: 'ICDT', subCode: 'SALA', proprietary: 'BACS' },
  interest: { code: 'MCOP', subCode: 'INTR', proprietary: 'INT' },
  charges: { code: 'MDOP', subCode: 'CHRG', proprietary: 'CHG' },
  transferIn: { code: 'RCDT', subCode: 'BOOK', proprietary: 'TFR' },
  transferOut: { code: 'ICDT', subCode: 'BOOK', proprietary: 'TFR' },
} as const;

export type CodeName = keyof typeof CODES;
