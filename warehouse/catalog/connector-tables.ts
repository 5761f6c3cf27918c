// The connector tables of the organization's SQL database (docs/data-model.md section 2): each
// connector declares its own with its definition (common/connectors/<key>-tables.ts, named by the
// definition's `tables`); this is all of them, taken from the registry. Both SQL providers create
// and fill them from these declarations.
import { CONNECTORS, CONNECTOR_LIST } from '../../common/connectors';

export type { ColumnKind, ConnectorTable, Row } from '../../common/connectors/table';

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type AllTables = UnionToIntersection<(typeof CONNECTORS)[keyof typeof CONNECTORS]['tables']>;

/** Every connector's tables, by the names its definition gives them (quickbooksAccounts, sageTrialBalance, ...). */
export const connectorTables = Object.assign({}, ...CONNECTOR_LIST.map((c) => c.tables)) as AllTables;
