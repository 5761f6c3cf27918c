// A run as the api answers it (types only), apart from the api module so that the run's wording
// (../run-format.ts), which the api module uses too, can name it without an import cycle.
import type { PipelineRunAnswer, RunStatus } from '../../../../../common/contract/pipeline-runs';

export type { PipelineOfRun, TableOutcome } from '../../../../../common/contract/pipeline-runs';

/** A run as the api answers it; a run just started is known by its ids and status only, until its record is read. */
export type PipelineRun = Partial<PipelineRunAnswer> & { status: RunStatus };
