import { lazy, Suspense, useEffect, useRef, type ReactNode } from 'react';
import { BrowserRouter, Navigate, Outlet, Route, Routes, useLocation, useNavigate } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { FullScreenSpinner } from '../components/FullScreenSpinner';
import { NotAllowed, PageNotFound } from '../components/RouteNotices';
import { SESSION_EXPIRED, setUnauthorizedHandler } from '../lib/api-client';
import { titleForPath } from '../lib/format';
import { afterSignIn, clearSession, EXPIRY_CHECK_MS, getToken, homeFor, isExpired, isSignedIn, setLoginNotice, useSession } from '../lib/session';
import { paths } from './paths';

// Every page is its own chunk: the login page loads only what it needs.
const Shell = lazy(() => import('../components/Shell').then((m) => ({ default: m.Shell })));
const LoginPage = lazy(() => import('../features/auth/LoginPage'));
const OperationsPage = lazy(() => import('../features/operations/OperationsPage'));
const ForgotPasswordPage = lazy(() => import('../features/auth/ForgotPasswordPage'));
const ResetPasswordPage = lazy(() => import('../features/auth/ResetPasswordPage'));
const ResetSuccessPage = lazy(() => import('../features/auth/ResetSuccessPage'));
const ChangePasswordPage = lazy(() => import('../features/auth/ChangePasswordPage'));
const LandingPage = lazy(() => import('../features/public/LandingPage'));
const FaqPage = lazy(() => import('../features/public/FaqPage'));
const AboutPage = lazy(() => import('../features/public/AboutPage'));
const PrivacyPolicyPage = lazy(() => import('../features/public/PrivacyPolicyPage'));
const LicenseAgreementPage = lazy(() => import('../features/public/LicenseAgreementPage'));
const FileUploadPage = lazy(() => import('../features/files/FileUploadPage'));
const PipelinesPage = lazy(() => import('../features/pipelines/PipelinesPage'));
const ConsolidationPage = lazy(() => import('../features/consolidation/ConsolidationPage'));
const DataPage = lazy(() => import('../features/explorer/DataPage'));
const TablePage = lazy(() => import('../features/explorer/TablePage'));
const ReportsPage = lazy(() => import('../features/reports/ReportsPage'));
const AppsPage = lazy(() => import('../features/apps/AppsPage'));
const DashboardPage = lazy(() => import('../features/dashboard/DashboardPage'));
const OrganizationsPage = lazy(() => import('../features/organizations/OrganizationsPage'));
const OrgOnboardingPage = lazy(() => import('../features/onboarding/OrgOnboardingPage'));
const UsersPage = lazy(() => import('../features/users/UsersPage'));

/**
 * Ends the session when it expires (checked every 120000 ms) or when the api answers 401. The
 * login page says why, once (its banner, no toast beside it), and returns to this page after.
 */
function SessionWatcher() {
  const navigate = useNavigate();
  const location = useLocation();
  // The page the user is on, for the login page to return to once they sign in again.
  const here = useRef('');
  here.current = location.pathname + location.search;
  useEffect(() => {
    setUnauthorizedHandler((message) => {
      // Already on /login (the route guard got there first, with the page to return to): stay.
      if (here.current.split('?')[0] !== paths.login) navigate(paths.login, { replace: true, state: { notice: message, from: here.current } });
    });
    const check = () => {
      if (getToken() && isExpired()) {
        setLoginNotice(SESSION_EXPIRED);
        clearSession();
        navigate(paths.login, { replace: true, state: { notice: SESSION_EXPIRED, from: here.current } });
      }
    };
    check();
    const timer = setInterval(check, EXPIRY_CHECK_MS);
    return () => clearInterval(timer);
  }, [navigate]);
  return null;
}

function PageTitle() {
  const { pathname } = useLocation();
  useEffect(() => {
    document.title = titleForPath(pathname);
  }, [pathname]);
  return null;
}

function RequireAuth({ children }: { children: ReactNode }) {
  useSession();
  const location = useLocation();
  if (!isSignedIn()) return <Navigate to={paths.login} replace state={{ from: location.pathname + location.search }} />;
  return <>{children}</>;
}

function RequireAdmin({ children }: { children: ReactNode }) {
  const { user } = useSession();
  if (user?.role !== 'admin') return <NotAllowed />;
  return <>{children}</>;
}

/** Login and password-reset pages send a signed-in user home (spec section 2). */
function GuestOnly({ children }: { children: ReactNode }) {
  const { user } = useSession();
  const location = useLocation();
  // Signing in again returns to the page the ended session was on.
  if (isSignedIn()) return <Navigate to={afterSignIn(user?.role, (location.state as { from?: unknown } | null)?.from)} replace />;
  return <>{children}</>;
}

/** An unknown address: "Page not found" inside the app shell when signed in, on its own otherwise. */
function ShellIfSignedIn() {
  useSession();
  return isSignedIn() ? <Shell /> : <Outlet />;
}

/** `/` is the public home page; signed in, an admin's upload screen (as before) and a finance user's figures (the Dashboard). */
function Home() {
  useSession();
  return isSignedIn() ? <Shell /> : <LandingPage />;
}

function HomeIndex() {
  const { user } = useSession();
  return user?.role === 'admin' ? <FileUploadPage /> : <Navigate to={homeFor(user?.role)} replace />;
}

export function AppRoutes() {
  return (
    <>
      <SessionWatcher />
      <PageTitle />
      <Suspense fallback={<FullScreenSpinner />}>
        <Routes>
          <Route path={paths.login} element={<GuestOnly><LoginPage /></GuestOnly>} />
          <Route path={paths.forgotPassword} element={<GuestOnly><ForgotPasswordPage /></GuestOnly>} />
          <Route path={paths.resetPasswordSuccess} element={<GuestOnly><ResetSuccessPage /></GuestOnly>} />
          <Route path={paths.resetPassword} element={<GuestOnly><ResetPasswordPage /></GuestOnly>} />
          <Route path={`${paths.resetPassword}/:resetToken`} element={<GuestOnly><ResetPasswordPage /></GuestOnly>} />
          <Route path={paths.faq} element={<FaqPage />} />
          <Route path={paths.aboutUs} element={<AboutPage />} />
          <Route path={paths.privacyPolicy} element={<PrivacyPolicyPage />} />
          <Route path={paths.licenseAgreement} element={<LicenseAgreementPage />} />
          <Route path={paths.home} element={<Home />}>
            <Route index element={<HomeIndex />} />
          </Route>
          <Route element={<RequireAuth><Shell /></RequireAuth>}>
            <Route path={paths.fileUpload} element={<FileUploadPage />} />
            <Route path={paths.pipelines} element={<PipelinesPage />} />
            <Route path={paths.data} element={<DataPage />} />
            <Route path={`${paths.data}/:table`} element={<TablePage />} />
            <Route path={paths.consolidation} element={<ConsolidationPage />} />
            <Route path={paths.reports} element={<ReportsPage />} />
            <Route path={paths.apps} element={<AppsPage />} />
            <Route path={paths.appCallback} element={<AppsPage />} />
            <Route path={paths.dashboard} element={<DashboardPage />} />
            <Route path={paths.changePassword} element={<ChangePasswordPage />} />
            <Route path={paths.organizations} element={<RequireAdmin><OrganizationsPage /></RequireAdmin>} />
            <Route path={paths.orgOnboarding} element={<RequireAdmin><OrgOnboardingPage /></RequireAdmin>} />
            <Route path={paths.users} element={<RequireAdmin><UsersPage /></RequireAdmin>} />
            <Route path={paths.operations} element={<RequireAdmin><OperationsPage /></RequireAdmin>} />
          </Route>
          <Route element={<ShellIfSignedIn />}>
            <Route path="*" element={<PageNotFound />} />
          </Route>
        </Routes>
      </Suspense>
    </>
  );
}

export default function App() {
  return (
    <BrowserRouter>
      <SWRConfig value={{ shouldRetryOnError: false, revalidateOnFocus: false }}>
        <AppRoutes />
      </SWRConfig>
    </BrowserRouter>
  );
}
