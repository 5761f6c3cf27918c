import { Spinner } from '@blueprintjs/core';
import { lazy, Suspense } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router-dom';
import { paths } from './paths';

const LoginPage = lazy(() => import('../features/auth/LoginPage'));

export function AppRoutes() {
  return (
    <Suspense fallback={<div className="fullscreen-spinner"><Spinner /></div>}>
      <Routes>
        <Route path={paths.login} element={<LoginPage />} />
        <Route path="*" element={<Navigate to={paths.login} replace />} />
      </Routes>
    </Suspense>
  );
}

export default function App() {
  return (
    <BrowserRouter>
      <AppRoutes />
    </BrowserRouter>
  );
}
