/**
 * Debian's Chromium driven by playwright-core, for the dashboard's tests: headless, a fresh
 * empty profile, and the flags that keep it from reaching the internet. With
 * DASHBOARD_SCREENSHOTS=<dir> set, `screenshot` saves a PNG per call there (nothing otherwise).
 */

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(opts: { ignoreHTTPSErrors?: boolean } = {}): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), "karmada-ts-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1400, height: 900 },
      ignoreHTTPSErrors: opts.ignoreHTTPSErrors ?? false,
      locale: "en-US",
      timezoneId: "UTC",
    });
  } catch (err) {
    await rm(profile, { recursive: true, force: true });
    throw err;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  // Bounded waits: every locator wait gives up after this long.
  page.setDefaultTimeout(20_000);
  return {
    context,
    page,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page PNG as `<name>.png` when DASHBOARD_SCREENSHOTS names a directory. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.DASHBOARD_SCREENSHOTS;
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP(S) request with exactly the headers given (a foreign Host, no CSRF header ...). */
export function rawRequest(
  url: string,
  opts: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    ca?: string;
    firstLine?: boolean;
  } = {},
): Promise<RawResponse> {
  const u = new URL(url);
  const request = u.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        method: opts.method ?? "GET",
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        headers: opts.headers ?? {},
        // A connection each: a refused request's unread body must not spoil the next one.
        agent: false,
        ...(u.protocol === "https:" ? { ca: opts.ca, rejectUnauthorized: opts.ca !== undefined } : {}),
        timeout: 20_000,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          body += d;
          // A stream never ends by itself: its first message is enough.
          if (opts.firstLine && body.includes("\n")) {
            res.destroy();
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: body.slice(0, body.indexOf("\n")),
            });
          }
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer from ${url}`)));
    req.on("error", reject);
    req.end(opts.body);
  });
}
