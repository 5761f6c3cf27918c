import { NonIdealState } from '@blueprintjs/core';
import { Link } from 'react-router-dom';
import { homeFor, isSignedIn, useSession } from '../lib/session';

/** Where "Go to your start page" leads: a signed-in user's home, else the public home page. */
function useStartPage(): string {
  const { user } = useSession();
  return isSignedIn() ? homeFor(user?.role) : '/';
}

/** An address the app does not know: said as such, instead of silently landing elsewhere. */
export function PageNotFound() {
  const start = useStartPage();
  return (
    <main className="route-notice">
      <NonIdealState icon="search" title="Page not found" description="There is no page at this address. It may have moved, or the link may be mistyped." action={<Link to={start}>Go to your start page</Link>} />
    </main>
  );
}

/** An admin-only screen opened by a user: the address exists, the account may not use it. */
export function NotAllowed() {
  const start = useStartPage();
  return (
    <div className="route-notice">
      <NonIdealState icon="lock" title="Not allowed" description="This page is for administrators. Ask an administrator if you need what it shows." action={<Link to={start}>Go to your start page</Link>} />
    </div>
  );
}
