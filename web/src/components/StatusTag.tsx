import { Tag, type Intent } from '@blueprintjs/core';
import { statusLabel } from '../lib/format';

const INTENTS: Record<string, Intent> = {
  done: 'success',
  completed: 'success',
  succeeded: 'success',
  saved: 'success',
  uploaded: 'none',
  saving: 'primary',
  syncing: 'primary',
  not_started: 'none',
  incomplete: 'warning',
  up_to_date: 'success',
  no_files: 'warning',
  success: 'success',
  active: 'success',
  running: 'primary',
  pending: 'none',
  queued: 'none',
  failed: 'danger',
  error: 'danger',
  reconnect_needed: 'warning',
  'reconnect needed': 'warning',
  cancelled: 'warning',
  canceled: 'warning',
  terminated: 'warning',
  inactive: 'none',
};

/** A run's, step's or connection's status as a coloured tag in words ("Not started"); data-status keeps the raw value. */
export function StatusTag({ status }: { status: string | null | undefined }) {
  const s = (status ?? 'unknown').toString();
  return (
    <Tag intent={INTENTS[s.toLowerCase()] ?? 'none'} minimal round data-status={s.toLowerCase()}>
      {statusLabel(s)}
    </Tag>
  );
}
