/**
 * A GET over HTTPS with the credentials a scraper would send (a bearer token or a client
 * certificate), trusting `ca`, or nothing (as `curl -k`) when `ca` is undefined.
 */
import { request } from "node:https";

export function httpsGet(
  url: string,
  opts: { token?: string; cert?: { certPem: string; keyPem: string }; ca?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        ...(opts.ca ? { ca: opts.ca } : { rejectUnauthorized: false }),
        ...(opts.token ? { headers: { Authorization: `Bearer ${opts.token}` } } : {}),
        ...(opts.cert ? { cert: opts.cert.certPem, key: opts.cert.keyPem } : {}),
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (d: string) => {
          body += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}
