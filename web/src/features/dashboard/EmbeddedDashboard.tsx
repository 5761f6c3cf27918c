import { Button, NonIdealState, Spinner } from '@blueprintjs/core';
import { useEffect, useRef, useState } from 'react';
import type { Dashboard } from '../../lib/session';

/** A frame that has not loaded by then is taken as failed (a BI server that never answers). */
export const FRAME_TIMEOUT_MS = 15000;

export const FRAME_FAILED = 'The dashboard did not load';

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/**
 * One embedded BI dashboard in its frame: a loading state until the frame loads; when it fails
 * (the frame's error event, or no load within FRAME_TIMEOUT_MS) a message with Retry and Open in new tab.
 * A page the BI server answers with an error of its own still "loads": the frame cannot see inside
 * another site, so that case shows the server's page.
 */
export function EmbeddedDashboard({ dashboard, timeoutMs = FRAME_TIMEOUT_MS }: { dashboard: Dashboard; timeoutMs?: number }) {
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<'loading' | 'loaded' | 'failed'>('loading');
  const retry = useRef<HTMLButtonElement>(null);
  const frame = useRef<HTMLIFrameElement>(null);

  useEffect(() => {
    setState('loading');
    const timer = setTimeout(() => setState((s) => (s === 'loading' ? 'failed' : s)), timeoutMs);
    return () => clearTimeout(timer);
  }, [attempt, timeoutMs]);

  const framed = state !== 'failed';
  // React wires no onError on a frame: the element's own error event is listened to.
  useEffect(() => {
    const el = frame.current;
    if (!el) return;
    const failed = () => setState('failed');
    el.addEventListener('error', failed);
    return () => el.removeEventListener('error', failed);
  }, [attempt, framed]);

  // The message takes the focus, so a keyboard user lands on Retry.
  useEffect(() => {
    if (state === 'failed') retry.current?.focus();
  }, [state]);

  if (state === 'failed') {
    return (
      <div className="dashboard-failed" role="alert">
        <NonIdealState
          icon="error"
          title={FRAME_FAILED}
          description={`"${dashboard.name}" did not load from ${hostOf(dashboard.url)}. The BI server may be unavailable, or it may refuse to be shown inside another site: open it in a new tab, or try again.`}
          action={
            <div className="button-row">
              <Button ref={retry} intent="primary" icon="refresh" text="Retry" onClick={() => setAttempt((a) => a + 1)} />
              <a className="bp5-button" href={dashboard.url} target="_blank" rel="noopener noreferrer">
                Open in new tab
              </a>
            </div>
          }
        />
      </div>
    );
  }
  return (
    <div className="dashboard-frame-wrap">
      {state === 'loading' && (
        <div className="dashboard-frame-loading" role="status">
          <Spinner size={20} />
          <span>Loading {dashboard.name}...</span>
        </div>
      )}
      <iframe
        key={attempt}
        ref={frame}
        className="dashboard-frame"
        title={dashboard.name}
        src={dashboard.url}
        allowFullScreen
        sandbox="allow-scripts allow-same-origin allow-forms allow-popups"
        referrerPolicy="no-referrer"
        onLoad={() => setState('loaded')}
      />
    </div>
  );
}
