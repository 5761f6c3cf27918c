import { Button, Menu, MenuItem, Popover, Spinner } from '@blueprintjs/core';
import { Suspense, useEffect, useState } from 'react';
import { Link, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { paths } from '../app/paths';
import { useCurrentOrganization } from '../shared/organizations/useCurrentOrganization';
import { logout as endSession } from '../lib/logout';
import { useProfile } from '../shared/profile/useProfile';
import { displayName, homeFor, initials, setLoginNotice } from '../lib/session';
import { menuForRole, type MenuEntry } from './menu';
import { toast } from './toaster';

/** Spec section 9: the sidebar collapses at the medium breakpoint. */
export const COLLAPSE_QUERY = '(max-width: 767.98px)';

function useNarrowScreen(): boolean {
  const mq = typeof window !== 'undefined' && window.matchMedia ? window.matchMedia(COLLAPSE_QUERY) : null;
  const [narrow, setNarrow] = useState(Boolean(mq?.matches));
  useEffect(() => {
    if (!mq) return;
    const onChange = () => setNarrow(mq.matches);
    mq.addEventListener('change', onChange);
    return () => mq.removeEventListener('change', onChange);
  }, [mq]);
  return narrow;
}

function isActive(entry: MenuEntry, pathname: string, search: string): boolean {
  const [path, q] = entry.to.split('?');
  if (q) return pathname === path && new URLSearchParams(search).get('name') === new URLSearchParams(q).get('name');
  if (entry.to === paths.fileUpload && pathname === '/') return true;
  return pathname === path;
}

function MenuList({ entries, onNavigate }: { entries: MenuEntry[]; onNavigate: () => void }) {
  const { pathname, search } = useLocation();
  return (
    <ul className="side-menu">
      {entries.map((e) => (
        <li key={e.to}>
          <Link to={e.to} className={isActive(e, pathname, search) ? 'active' : undefined} aria-current={isActive(e, pathname, search) ? 'page' : undefined} onClick={onNavigate}>
            {e.label}
          </Link>
          {e.children && e.children.length > 0 && <MenuList entries={e.children} onNavigate={onNavigate} />}
        </li>
      ))}
    </ul>
  );
}

/** The app shell: collapsible sidebar (logo, menu, Logout) and header (toggle, organization, user). */
export function Shell() {
  const narrow = useNarrowScreen();
  const [collapsed, setCollapsed] = useState(narrow);
  useEffect(() => setCollapsed(narrow), [narrow]);
  const navigate = useNavigate();
  const { user } = useProfile();
  const { organization, dashboards } = useCurrentOrganization();
  const entries = menuForRole(user?.role, dashboards);
  // Controlled, so a choice closes the menu even though the shell stays mounted across pages;
  // keyed by the page too, so every page starts with it closed.
  const [userMenuOpen, setUserMenuOpen] = useState(false);
  const { pathname } = useLocation();

  function logout() {
    setLoginNotice(null);
    void endSession();
    toast('Logout Successfully!', 'success');
    navigate(paths.login, { replace: true });
  }

  return (
    <div className={`shell${collapsed ? ' shell-collapsed' : ''}${narrow ? ' shell-narrow' : ''}`}>
      <aside className="sidebar" id="sidebar" aria-label="Sidebar" hidden={collapsed}>
        <Link to={homeFor(user?.role)} className="logo">
          LedgerFlow
        </Link>
        <nav aria-label="Main menu">
          <MenuList entries={entries} onNavigate={() => narrow && setCollapsed(true)} />
        </nav>
        <Button className="logout" icon="log-out" text="Logout" variant="minimal" onClick={logout} />
      </aside>
      {narrow && !collapsed && <div className="sidebar-backdrop" onClick={() => setCollapsed(true)} aria-hidden="true" />}
      <div className="shell-main">
        <header className="app-header">
          <Button icon="menu" variant="minimal" aria-label="Toggle sidebar" aria-controls="sidebar" aria-expanded={!collapsed} onClick={() => setCollapsed((c) => !c)} />
          {user?.role === 'user' && <span className="org-name" data-testid="org-name">{organization?.organizationName ?? ''}</span>}
          <span className="header-spacer" />
          <Popover
            key={pathname}
            placement="bottom-end"
            isOpen={userMenuOpen}
            onInteraction={setUserMenuOpen}
            content={
              <Menu>
                <MenuItem
                  icon="key"
                  text="Change Password"
                  onClick={() => {
                    setUserMenuOpen(false);
                    navigate(paths.changePassword);
                  }}
                />
              </Menu>
            }
          >
            {/* Named by its content ("Ada Lovelace, user menu"): an aria-label would hide the visible name (WCAG 2.5.3). */}
            <Button variant="minimal" className="user-menu" rightIcon="caret-down">
              <span className="avatar" aria-hidden="true">{initials(user)}</span>
              <span className="user-name">{displayName(user)}</span>
              <span className="sr-only">, user menu</span>
            </Button>
          </Popover>
        </header>
        <main className="content">
          {/* A page's own boundary: while its code loads, the header and sidebar stay mounted and usable
              (the app-wide boundary would hide the whole shell, and a menu opened just then). */}
          <Suspense
            fallback={
              <div className="page-spinner" role="status" aria-label="Loading">
                <Spinner />
              </div>
            }
          >
            <Outlet />
          </Suspense>
        </main>
      </div>
    </div>
  );
}
