import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { paths } from '../../app/paths';

/** Public pages: no app shell, the landing navigation and the legal links. */
export function PublicLayout({ children }: { children: ReactNode }) {
  return (
    <div className="public">
      <header className="public-header">
        <Link to={paths.home} className="logo">
          LedgerFlow
        </Link>
        <nav aria-label="Site" className="public-nav">
          <a href="/#home">Home</a>
          <a href="/#features">Features</a>
          <a href="/#integrations">Integrations</a>
          <a href="/#solutions">Solutions</a>
          <Link to={paths.faq}>FAQ</Link>
          <a href="/#contact-us">Contact-Us</a>
          <Link to={paths.login} className="public-login">
            Sign in
          </Link>
        </nav>
      </header>
      <main className="public-main">{children}</main>
      <footer className="public-footer">
        <Link to={paths.aboutUs}>About Us</Link>
        <Link to={paths.faq}>FAQ</Link>
        <Link to={paths.privacyPolicy}>Privacy Policy</Link>
        <Link to={paths.licenseAgreement}>License Agreement</Link>
        <span>© LedgerFlow</span>
      </footer>
    </div>
  );
}
