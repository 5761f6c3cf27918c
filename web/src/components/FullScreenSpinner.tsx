import { Spinner } from '@blueprintjs/core';

export function FullScreenSpinner() {
  return (
    <div className="fullscreen-spinner" role="status" aria-label="Loading">
      <Spinner />
    </div>
  );
}
