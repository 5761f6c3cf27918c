// The warehouse's own activities (what a workflow asks of the organization's database directly):
// thin adapters over warehouse/, where the SQL is.
import { Organization } from '../../common/models/organization';
import type { DropCsvTableInput, DropCsvTableOutput } from '../../warehouse/drop-table';
import type { Warehouse } from '../../warehouse/types';
import { fail } from '../../common/failures';

export function createWarehouseActivities({ warehouse }: { warehouse: Warehouse }) {
  return {
    /** Drops a table a CSV was saved to (workflows/tables.ts). */
    async dropCsvTable(input: DropCsvTableInput): Promise<DropCsvTableOutput> {
      // Histories from before the organization was sent name only the database: find its owner.
      const orgId = input.orgId ?? String((await Organization.findOne({ 'onboarding.databaseName': input.databaseName }, { _id: 1 }).lean())?._id ?? '');
      if (!orgId) throw fail.notFound(`Database "${input.databaseName}" belongs to no organization`);
      return warehouse.dropCsvTable({ orgId, databaseName: input.databaseName }, input.tableName);
    },
  };
}
