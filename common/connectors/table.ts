// What a connector table of the organization's SQL database is (docs/data-model.md section 2):
// each connector declares its own beside its definition (common/connectors/<key>-tables.ts); both
// SQL providers create and fill them from these declarations (warehouse/connector-writer.ts).

export type ColumnKind = 'text' | 'decimal' | 'bool' | 'timestamp';

export interface ConnectorTable {
  /** <key>_<what>: the connector's key is its tables' prefix (warehouse/catalog/tables.ts). */
  name: string;
  columns: Record<string, ColumnKind>;
  /** The column that scopes a connection's rows (realm, company, NetSuite account). */
  scope: string;
  /** Tables keyed by month: a sync replaces exactly the months it fetched. */
  periodic: boolean;
}

export type Row = Record<string, string | number | boolean | null>;
