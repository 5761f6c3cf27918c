import { Tag, type Intent } from '@blueprintjs/core';
import { statusLabel } from './run-format';

// A cancelled run is someone's choice, not a failure: neutral, like a skipped pipeline.
const INTENTS: Record<string, Intent> = {
  succeeded: 'success',
  loaded: 'success',
  running: 'primary',
  failed: 'danger',
  no_files: 'warning',
};

/** A run's, pipeline's or table's status as a tag (data-status carries the raw value). */
export function RunStatusTag({ status }: { status: string | null | undefined }) {
  const s = (status ?? 'unknown').toLowerCase();
  return (
    <Tag intent={INTENTS[s] ?? 'none'} minimal round data-status={s}>
      {statusLabel(s)}
    </Tag>
  );
}
