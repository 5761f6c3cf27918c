// Sage Intacct XML Web Services: the request envelope (control / operation / authentication /
// content) and the response (control status, authentication status, one result per function).
// The endpoint comes from configuration, so tests point it at a local gateway.
import { XMLParser } from 'fast-xml-parser';
import { randomUUID } from 'node:crypto';

const TIMEOUT_MS = 60000;

export interface SageCredentials {
  senderId: string;
  senderPassword: string;
  companyId: string;
  userId: string;
  userPassword: string;
}

/** An Intacct failure answer, with Intacct's own error number and description. */
export class IntacctError extends Error {
  constructor(
    readonly errorno: string,
    readonly description: string,
    /** Where it failed: the control (sender), the authentication (user), or a function. */
    readonly level: 'control' | 'authentication' | 'function',
  ) {
    super(description ? `${description} (${errorno})` : `Intacct error ${errorno}`);
  }
  /** GW-0010: the gateway's rate limit. */
  get throttled(): boolean {
    return this.errorno === 'GW-0010';
  }
  get credentials(): boolean {
    return this.level !== 'function' || /^XL03000006$|^PL04000055$/.test(this.errorno);
  }
}
export class IntacctHttpError extends Error {
  constructor(readonly status: number) {
    super(`Intacct gateway answered HTTP ${status}`);
  }
}
export class MalformedIntacctAnswer extends Error {}

export const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

export type Authentication = { login: Pick<SageCredentials, 'companyId' | 'userId' | 'userPassword'> } | { sessionId: string };

/** The request envelope around one function (its inner XML, already escaped). */
export function buildRequest(sender: Pick<SageCredentials, 'senderId' | 'senderPassword'>, auth: Authentication, functionXml: string): string {
  const authXml =
    'sessionId' in auth
      ? `<sessionid>${xmlEscape(auth.sessionId)}</sessionid>`
      : `<login><userid>${xmlEscape(auth.login.userId)}</userid><companyid>${xmlEscape(auth.login.companyId)}</companyid><password>${xmlEscape(auth.login.userPassword)}</password></login>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<request>',
    `<control><senderid>${xmlEscape(sender.senderId)}</senderid><password>${xmlEscape(sender.senderPassword)}</password><controlid>${randomUUID()}</controlid><uniqueid>false</uniqueid><dtdversion>3.0</dtdversion><includewhitespace>false</includewhitespace></control>`,
    `<operation><authentication>${authXml}</authentication><content><function controlid="${randomUUID()}">${functionXml}</function></content></operation>`,
    '</request>',
  ].join('');
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  trimValues: true,
  isArray: (name, jpath) => ['response.operation.result', 'glaccount', 'glentry', 'trialbalance', 'error'].includes(name) || jpath === 'response.operation.result',
});

type Node = Record<string, unknown>;
const isObj = (v: unknown): v is Node => !!v && typeof v === 'object' && !Array.isArray(v);

function firstError(container: unknown, level: IntacctError['level']): IntacctError {
  const errors = isObj(container) && isObj(container.errormessage) ? container.errormessage.error : undefined;
  const e = Array.isArray(errors) && isObj(errors[0]) ? errors[0] : {};
  const text = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
  const description = text(e.description2) || text(e.description) || text(e.correction);
  return new IntacctError(text(e.errorno) || 'unknown', description, level);
}

/** Parses a gateway answer; failures at any level become IntacctError. Answers the function's data. */
export function parseResponse(xml: string): { data: Node; status: string } {
  let doc: Node;
  try {
    doc = parser.parse(xml, true) as Node;
  } catch (e) {
    throw new MalformedIntacctAnswer(`Intacct answer is not XML: ${(e as Error).message}`);
  }
  const response = doc.response;
  if (!isObj(response) || !isObj(response.control)) throw new MalformedIntacctAnswer('Intacct answer has no response/control');
  if (response.control.status !== 'success') throw firstError(response, 'control');
  const operation = response.operation;
  if (!isObj(operation) || !isObj(operation.authentication)) throw new MalformedIntacctAnswer('Intacct answer has no operation/authentication');
  if (operation.authentication.status !== 'success') throw firstError(operation, 'authentication');
  const results = operation.result;
  const result = Array.isArray(results) ? results[0] : undefined;
  if (!isObj(result)) throw new MalformedIntacctAnswer('Intacct answer has no result');
  if (result.status !== 'success') throw firstError(result, 'function');
  return { status: String(result.status), data: isObj(result.data) ? result.data : {} };
}

export async function post(endpoint: string, xml: string): Promise<{ data: Node }> {
  const res = await fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/xml' }, body: xml, signal: AbortSignal.timeout(TIMEOUT_MS) });
  const text = await res.text();
  if (res.status === 429) throw new IntacctError('GW-0010', 'Too many requests', 'control');
  // Intacct answers failures inside a 200 XML document; other statuses may still carry one.
  if (!res.ok && !text.trimStart().startsWith('<')) throw new IntacctHttpError(res.status);
  try {
    return parseResponse(text);
  } catch (e) {
    if (e instanceof MalformedIntacctAnswer && !res.ok) throw new IntacctHttpError(res.status);
    throw e;
  }
}

/** Signs in with the user's credentials and answers an API session id (checks the credentials). */
export async function getApiSession(endpoint: string, c: SageCredentials): Promise<string> {
  const { data } = await post(endpoint, buildRequest(c, { login: c }, '<getAPISession/>'));
  const api = data.api;
  const sessionId = isObj(api) ? api.sessionid : undefined;
  if (typeof sessionId !== 'string' || !sessionId) throw new MalformedIntacctAnswer('Intacct getAPISession answer has no sessionid');
  return sessionId;
}

export { isObj };
export type { Node as XmlNode };
