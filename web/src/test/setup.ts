import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';

// React Router 6 announces its v7 flags on every render; the app opts out of
// v7_startTransition on purpose (route changes show the full-screen spinner).
const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && args[0].includes('React Router Future Flag Warning')) return;
  warn(...args);
};

// findBy*/waitFor give up after 1 s by default: on a busy machine a Blueprint transition can take
// longer. They still end as soon as the awaited state appears.
configure({ asyncUtilTimeout: 10_000 });
