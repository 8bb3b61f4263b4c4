/**
 * Hash routes (`#/workloads?ns=default&q=web`): the page and its query, read and written here
 * so that every view is a URL a user can share or reload.
 */
import { useEffect, useState } from "preact/hooks";

export interface Route {
  page: string;
  query: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#\/?/, "");
  const q = text.indexOf("?");
  const page = (q < 0 ? text : text.slice(0, q)) || "clusters";
  return { page, query: new URLSearchParams(q < 0 ? "" : text.slice(q + 1)) };
}

export function href(page: string, query: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams(
    Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ""),
  ).toString();
  return `#/${page}${q ? `?${q}` : ""}`;
}

/** Replaces the query of the current route (no new history entry). */
export function setQuery(route: Route, changes: Record<string, string | undefined>): void {
  const next = new URLSearchParams(route.query);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === "") next.delete(k);
    else next.set(k, v);
  }
  const q = next.toString();
  history.replaceState(null, "", `#/${route.page}${q ? `?${q}` : ""}`);
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = (): void => setRoute(parseRoute(location.hash));
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  return route;
}

export function workloadHref(key: string): string {
  return href("workload", { key });
}
