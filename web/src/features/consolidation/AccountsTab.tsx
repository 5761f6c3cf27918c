import { HTMLTable } from '@blueprintjs/core';
import { exportAccounts, importAccounts } from './api/accounts';
import type { GroupAccount } from './api/overview';
import { CsvExport, CsvImport } from './CsvImport';
import { inWords, ROLE_WORDS, TYPE_WORDS } from './words';

/** The group chart: every group account, the statement line it sits on and the role the consolidation gives it. */
export function AccountsTab({ orgId, accounts }: { orgId: string; accounts: GroupAccount[] }) {
  return (
    <>
      <div className="tab-tools">
        <CsvExport text="Export CSV" onExport={() => exportAccounts(orgId)} />
        <CsvImport id="accounts-import" label="Group chart CSV file" buttonText="Import chart" help="A CSV with the columns code, name, type, line, role: it replaces the whole chart." onImport={(csv) => importAccounts(orgId, csv)} />
      </div>
      <div className="table-scroll">
        <HTMLTable striped compact className="full-width consolidation-table" aria-label="Group accounts">
          <thead>
            <tr>
              <th>Code</th>
              <th>Name</th>
              <th className="wide-only">Type</th>
              <th className="wide-only">Statement line</th>
              <th className="wide-only">Role</th>
            </tr>
          </thead>
          <tbody>
            {accounts.map((a) => (
              <tr key={a.code}>
                <td>{a.code}</td>
                <td>{a.name}</td>
                <td className="wide-only">{TYPE_WORDS[a.type]}</td>
                <td className="wide-only">{a.line}</td>
                <td className="wide-only">{a.role ? inWords(ROLE_WORDS, a.role) : ''}</td>
              </tr>
            ))}
          </tbody>
        </HTMLTable>
      </div>
    </>
  );
}
