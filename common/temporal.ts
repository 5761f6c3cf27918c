// Names shared by the api (which starts and queries workflows) and the worker.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attribute registered on the dev server (`--search-attribute OrganizationId=Keyword`). */
export const ORGANIZATION_ID = defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD);

/** Workflow IDs derive from the business key so a repeated request finds the running one. */
export const workflowIds = {
  onboarding: (orgId: string) => `onboard-${orgId}`,
  onboardingStep: (step: string, orgId: string) => `onboard-${step}-${orgId}`,
  csvSave: (orgId: string, uploadId: string) => `csv-${orgId}-${uploadId}`,
  pipelineRun: (orgId: string) => `pipelines-${orgId}`,
  consolidation: (orgId: string) => `consolidate-${orgId}`,
  quickbooksSync: (accountId: string) => `sync-quickbooks-${accountId}`,
  sageSync: (accountId: string) => `sync-sage-${accountId}`,
  netsuiteSync: (accountId: string) => `sync-netsuite-${accountId}`,
  quickbooksConnect: (stateId: string) => `quickbooks-connect-${stateId}`,
  sageConnect: (pendingId: string) => `sage-connect-${pendingId}`,
  netsuiteConnect: (pendingId: string) => `netsuite-connect-${pendingId}`,
  /** Table names compare without case in the warehouse: a delete of Sales finds one of sales running. */
  tableDelete: (orgId: string, tableName: string) => `table-delete-${orgId}-${tableName.toLowerCase()}`,
  organizationDelete: (orgId: string) => `organization-delete-${orgId}`,
  quickbooksChanges: (accountId: string) => `quickbooks-changes-${accountId}`,
};

/** The query every product workflow answers with its live state (current step, each step's result or error). */
export const PROGRESS_QUERY = 'progress';

/** The signal a CSV load sends its save workflow as it reads (rows and bytes so far). */
export const CSV_PROGRESS_SIGNAL = 'csvLoadProgress';
