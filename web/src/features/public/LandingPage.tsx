import { Card, H1, H2, H3 } from '@blueprintjs/core';
import { Link } from 'react-router-dom';
import { paths } from '../../app/paths';
import { ContactForm } from './ContactForm';
import { FAQ } from './faq';
import { PublicLayout } from './PublicLayout';

export default function LandingPage() {
  return (
    <PublicLayout>
      <section id="home" className="hero">
        <H1>Your finance data, consolidated</H1>
        <p>Connect your accounting systems, upload CSV files, run the pipelines that consolidate them and read your dashboards, all in one place.</p>
        <Link to={paths.login} className="bp5-button bp5-intent-primary bp5-large">
          Sign in
        </Link>
      </section>
      <section id="features">
        <H2>Features</H2>
        <div className="card-grid">
          <Card><H3>Connections</H3><p>QuickBooks Online and Sage Intacct synced on a schedule or on demand.</p></Card>
          <Card><H3>CSV uploads</H3><p>Upload CSV files and save them as tables in your organization’s SQL database.</p></Card>
          <Card><H3>Pipelines</H3><p>Durable pipeline runs with live status and a full history.</p></Card>
          <Card><H3>Dashboards</H3><p>Embedded business-intelligence dashboards over your consolidated data.</p></Card>
        </div>
      </section>
      <section id="integrations">
        <H2>Integrations</H2>
        <p>NetSuite, Sage and QuickBooks, plus CSV from any system. Real-time or batch updates.</p>
      </section>
      <section id="solutions">
        <H2>Solutions</H2>
        <p>Month-end consolidation, custom reports, user roles and onboarding training for your finance team.</p>
      </section>
      <section id="faq">
        <H2>FAQ</H2>
        {FAQ.slice(0, 3).map((f) => (
          <details key={f.q}>
            <summary>{f.q}</summary>
            <p>{f.a}</p>
          </details>
        ))}
        <p>
          <Link to={paths.faq}>All questions</Link>
        </p>
      </section>
      <section id="contact-us">
        <H2>Contact-Us</H2>
        <ContactForm />
      </section>
    </PublicLayout>
  );
}
