// Code columns read as text in the data explorer (issue 34: budget codes showed as "4,000"): the
// name rule, and the kind the explorer api gives a column a CSV's load typed as a number.
import { isCodeColumn } from '../common/code-columns';
import { columnKind } from '../warehouse/catalog/tables';

describe('code columns', () => {
  it('knows a code column by the last word of its name', () => {
    for (const name of ['account', 'gl_account', 'account_code', 'AccountNumber', 'GLAccount', 'cost-center code', 'invoice_no', 'ref', 'budget_codes']) expect([name, isCodeColumn(name)]).toEqual([name, true]);
    for (const name of ['amount', 'account_balance', 'accounts_total', 'id', 'fiscal_year', 'debit', 'codex', 'qty']) expect([name, isCodeColumn(name)]).toEqual([name, false]);
  });

  it('gives a code column typed as a number the kind text; amounts and ids stay numbers', () => {
    expect(columnKind('budget', 'account', 'NUMERIC')).toBe('text');
    expect(columnKind('budget', 'account_code', 'integer')).toBe('text');
    expect(columnKind('budget', 'amount', 'NUMERIC')).toBe('number');
    expect(columnKind('budget', 'id', 'NUMERIC')).toBe('number');
    expect(columnKind('budget', 'account', 'TEXT')).toBe('text');
    expect(columnKind('budget', 'period', 'DATE')).toBe('date');
  });
});
