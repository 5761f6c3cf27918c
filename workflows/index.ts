// Every workflow the worker registers (this file is the worker's workflowsPath).
export { createContainerWorkflow, createDatabaseWorkflow, createDataFactoryWorkflow, importDataFactoryWorkflow, onboardOrganizationWorkflow } from './onboarding';
export { quickbooksSyncWorkflow, sageSyncWorkflow } from './sync';
export { pipelineRunWorkflow } from './pipelines';
export { csvSaveWorkflow } from './csv-save';
