// Every workflow the worker registers (this file is the worker's workflowsPath).
export { createContainerWorkflow, createDatabaseWorkflow, createDataFactoryWorkflow, importDataFactoryWorkflow, onboardOrganizationWorkflow } from './onboarding';
export { pipelineRunWorkflow } from './pipelines';
export { netsuiteSyncWorkflow, quickbooksSyncWorkflow, sageSyncWorkflow } from './sync';
export { csvSaveWorkflow } from './csv-save';
export { dropCsvTableWorkflow } from './tables';
export { netsuiteConnectWorkflow, quickbooksConnectWorkflow, sageConnectWorkflow } from './connect';
export { consolidationWorkflow } from './consolidation';
export { quickbooksChangesWorkflow } from './quickbooks-changes';
export { organizationDeleteWorkflow } from './organization-delete';
