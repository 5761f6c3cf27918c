// The accounting API's answers in Xero's JSON: Reports/TrialBalance (Header, Sections of Rows
// whose cells carry the AccountID in Attributes, amounts as text and empty when zero, a final
// section with the Total SummaryRow), Accounts and Organisation.
import type { XeroAccountDef, XeroOrganisation } from './books';
import { lastDay, reportAmount } from './books';

const SECTIONS: { title: string; classes: XeroAccountDef['Class'][] }[] = [
  { title: 'Revenue', classes: ['REVENUE'] },
  { title: 'Expenses', classes: ['EXPENSE'] },
  { title: 'Assets', classes: ['ASSET'] },
  { title: 'Liabilities', classes: ['LIABILITY'] },
  { title: 'Equity', classes: ['EQUITY'] },
];

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const longDate = (ymd: string) => `${Number(ymd.slice(8))} ${MONTHS[Number(ymd.slice(5, 7)) - 1]} ${ymd.slice(0, 4)}`;
/** Xero's JSON dates: /Date(ms+0000)/. */
export const msDate = (ms: number) => `/Date(${ms}+0000)/`;

/** Debit and credit columns of a net amount (debit positive). */
const sides = (net: bigint): [string, string] => [reportAmount(net > 0n ? net : 0n), reportAmount(net < 0n ? -net : 0n)];

export function trialBalanceReport(org: XeroOrganisation, date: string, nowMs: number) {
  const month = date.slice(0, 7);
  const lines = org.trialBalance(month);
  const cell = (Value: string, accountId: string) => ({ Value, Attributes: [{ Value: accountId, Id: 'account' }] });
  const totals = [0n, 0n, 0n, 0n];
  const sections = SECTIONS.map(({ title, classes }) => ({
    RowType: 'Section',
    Title: title,
    Rows: lines
      .filter((l) => classes.includes(l.account.Class))
      .map((l) => {
        const [d, c] = sides(l.month);
        const [yd, yc] = sides(l.ytd);
        if (l.month > 0n) totals[0]! += l.month;
        else totals[1]! -= l.month;
        if (l.ytd > 0n) totals[2]! += l.ytd;
        else totals[3]! -= l.ytd;
        const id = l.account.AccountID;
        return { RowType: 'Row', Cells: [cell(l.account.Code ? `${l.account.Name} (${l.account.Code})` : l.account.Name, id), cell(d, id), cell(c, id), cell(yd, id), cell(yc, id)] };
      }),
  })).filter((s) => s.Rows.length > 0);
  return {
    Id: org.o.tenantId,
    Status: 'OK',
    ProviderName: 'LedgerFlow',
    DateTimeUTC: msDate(nowMs),
    Reports: [
      {
        ReportID: 'TrialBalance',
        ReportName: 'Trial Balance',
        ReportType: 'TrialBalance',
        ReportTitles: ['Trial Balance', org.o.name, `As at ${longDate(date)}`],
        ReportDate: longDate(date),
        UpdatedDateUTC: msDate(nowMs),
        Fields: [],
        Rows: [
          { RowType: 'Header', Cells: [{ Value: 'Account' }, { Value: 'Debit' }, { Value: 'Credit' }, { Value: 'YTD Debit' }, { Value: 'YTD Credit' }] },
          ...sections,
          { RowType: 'Section', Rows: [{ RowType: 'SummaryRow', Cells: [{ Value: 'Total' }, ...totals.map((t) => ({ Value: reportAmount(t) || '0.00' }))] }] },
        ],
      },
    ],
  };
}

export function accountsAnswer(org: XeroOrganisation, nowMs: number) {
  return {
    Id: org.o.tenantId,
    Status: 'OK',
    ProviderName: 'LedgerFlow',
    DateTimeUTC: msDate(nowMs),
    Accounts: org.accounts.map((a) => ({ AccountID: a.AccountID, Code: a.Code || undefined, Name: a.Name, Status: a.Status, Type: a.Type, Class: a.Class, TaxType: 'BASEXCLUDED', EnablePaymentsToAccount: false, ShowInExpenseClaims: false, ReportingCode: a.Class.slice(0, 3), HasAttachments: false, UpdatedDateUTC: msDate(nowMs), AddToWatchlist: false })),
  };
}

export function organisationAnswer(org: XeroOrganisation, nowMs: number) {
  return {
    Id: org.o.tenantId,
    Status: 'OK',
    ProviderName: 'LedgerFlow',
    DateTimeUTC: msDate(nowMs),
    Organisations: [
      {
        OrganisationID: org.o.tenantId,
        APIKey: '',
        Name: org.o.name,
        LegalName: org.o.name,
        PaysTax: true,
        Version: org.o.countryCode,
        OrganisationType: 'COMPANY',
        BaseCurrency: org.o.baseCurrency,
        CountryCode: org.o.countryCode,
        IsDemoCompany: false,
        OrganisationStatus: 'ACTIVE',
        FinancialYearEndDay: Number(lastDay(`2001-${String(org.o.fyEndMonth).padStart(2, '0')}`).slice(8)),
        FinancialYearEndMonth: org.o.fyEndMonth,
        SalesTaxBasis: 'ACCRUALS',
        SalesTaxPeriod: 'QUARTERLY1',
        DefaultSalesTax: 'Tax Exclusive',
        DefaultPurchasesTax: 'Tax Exclusive',
        CreatedDateUTC: msDate(nowMs),
        OrganisationEntityType: 'COMPANY',
        Timezone: 'AUSEASTERNSTANDARDTIME',
        ShortCode: `!${org.o.seed}001`,
        Edition: 'BUSINESS',
        Class: 'STANDARD',
      },
    ],
  };
}

/** GET /Invoices/{id} or /CreditNotes/{id}: the document with its Date (and DateString). */
export function documentAnswer(org: XeroOrganisation, category: 'INVOICE' | 'CREDITNOTE', id: string, nowMs: number) {
  const doc = org.documents.find((d) => d.category === category && d.id === id);
  if (!doc) return null;
  const ms = Date.parse(`${doc.date}T00:00:00Z`);
  const common = { Date: msDate(ms), DateString: `${doc.date}T00:00:00`, Status: 'AUTHORISED', LineAmountTypes: 'Exclusive', CurrencyCode: org.o.baseCurrency, UpdatedDateUTC: msDate(nowMs) };
  return category === 'INVOICE'
    ? { Id: id, Status: 'OK', Invoices: [{ Type: 'ACCREC', InvoiceID: id, InvoiceNumber: doc.number, ...common }] }
    : { Id: id, Status: 'OK', CreditNotes: [{ Type: 'ACCRECCREDIT', CreditNoteID: id, CreditNoteNumber: doc.number, ...common }] };
}
