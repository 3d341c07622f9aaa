// A cookie-keeping HTTP client for the console's plain-HTTP tests: it signs in through the real
// form (sign-in cookie, CSRF token), keeps the session cookie, and posts forms like a browser.
export interface ConsolePage {
  status: number;
  headers: Headers;
  text: string;
}

export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(path: string): Promise<ConsolePage> {
    const res = await fetch(this.baseUrl + path, { headers: { cookie: this.cookieHeader() }, redirect: 'manual' });
    this.remember(res);
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  async post(path: string, form: Record<string, string>): Promise<ConsolePage> {
    const res = await fetch(this.baseUrl + path, {
      method: 'POST', redirect: 'manual',
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    this.remember(res);
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  /** The CSRF token of the first form on a page. */
  static csrfOf(page: ConsolePage): string {
    const match = /name="_csrf" value="([^"]+)"/.exec(page.text);
    if (!match) throw new Error(`no CSRF token on the page (status ${page.status})`);
    return match[1]!;
  }

  async signIn(key: string): Promise<ConsolePage> {
    const form = await this.get('/console/sign-in');
    return this.post('/console/sign-in', { _csrf: ConsoleClient.csrfOf(form), key });
  }
}
