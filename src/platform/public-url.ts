// The address customers reach this server at (SWITCHBOARD_PUBLIC_URL), so every URL the API
// returns is absolute: a recording's media_url, a call's events URL. Without the setting it
// is http://<host>:<port> of the listening socket, known once the server listens (port 0
// picks a port then).
export class PublicUrl {
  constructor(private current: string, private readonly configured: boolean) {}

  get base(): string {
    return this.current;
  }

  /** After listen(): the real address, unless SWITCHBOARD_PUBLIC_URL fixed it. */
  listening(address: string): void {
    if (!this.configured) this.current = address.replace(/\/+$/, '');
  }

  /** An absolute URL for a path of this API ("/v1/..."). */
  to(path: string): string {
    return this.current + path;
  }
}

/** SWITCHBOARD_PUBLIC_URL: an absolute http(s) URL without query or fragment; trailing slashes dropped. */
export function parsePublicUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`SWITCHBOARD_PUBLIC_URL must be an absolute URL such as https://switchboard.example.com, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`SWITCHBOARD_PUBLIC_URL must be http or https, got "${raw}"`);
  if (url.search || url.hash) throw new Error(`SWITCHBOARD_PUBLIC_URL must not have a query or fragment, got "${raw}"`);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}
