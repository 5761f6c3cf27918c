// Every workflow the worker registers (this file is the worker's workflowsPath).
export { createContainerWorkflow, createDatabaseWorkflow, createDataFactoryWorkflow, importDataFactoryWorkflow, onboardOrganizationWorkflow } from './onboarding';
export { pipelineRunWorkflow } from './pipelines';
export { csvSaveWorkflow } from './csv-save';
export { dropCsvTableWorkflow } from './tables';
export * from './connectors'; // each connector's sync and connect workflows (<key>SyncWorkflow, <key>ConnectWorkflow)
export { consolidationWorkflow } from './consolidation';
export { organizationChangesWorkflow } from './organization-changes';
export { organizationDeleteWorkflow } from './organization-delete';
export { packScheduleWorkflow, packSendWorkflow } from './packs';
