// Every workflow the worker registers (this file is the worker's workflowsPath).
export { createContainerWorkflow } from './onboarding';
