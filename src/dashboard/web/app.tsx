/** The dashboard's shell: who is signed in, the navigation bar, the namespace menu, and the page of the route. */
import type { ComponentChild } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { WhoAmI } from "../wire.ts";
import { ApiFailure, namespaces, setUnauthorizedHandler, storedToken, storeToken, whoAmI } from "./api.ts";
import { ClustersPage } from "./pages/clusters.tsx";
import { PoliciesPage } from "./pages/policies.tsx";
import { SignInPage } from "./pages/signin.tsx";
import { TimelinePage } from "./pages/timeline.tsx";
import { WhatIfPage } from "./pages/whatif.tsx";
import { WorkloadPage } from "./pages/workload.tsx";
import { WorkloadsPage } from "./pages/workloads.tsx";
import { href, useRoute } from "./route.ts";
import { Loading } from "./ui.tsx";

const NS_KEY = "karmada-dashboard-namespace";

const NAV = [
  { page: "clusters", label: "Clusters" },
  { page: "workloads", label: "Workloads" },
  { page: "failover", label: "Failover" },
  { page: "policies", label: "Policies" },
  { page: "whatif", label: "What if" },
] as const;

/** Pages that can be narrowed to one namespace. */
const NAMESPACED = new Set(["workloads", "failover", "policies"]);

function NamespaceMenu({ value, onChange }: { value: string; onChange: (ns: string) => void }) {
  const [known, setKnown] = useState<string[] | undefined>(undefined);
  const [draft, setDraft] = useState(value);
  useEffect(() => {
    namespaces().then(
      (r) => setKnown(r.forbidden ? [] : r.items),
      () => setKnown([]),
    );
  }, []);
  useEffect(() => setDraft(value), [value]);
  if (known && known.length > 0) {
    return (
      <label class="ns-menu">
        <span>Namespace</span>
        <select
          aria-label="Namespace"
          value={value}
          onChange={(e) => onChange((e.target as HTMLSelectElement).value)}
        >
          <option value="">All namespaces</option>
          {known.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
          {value && !known.includes(value) && <option value={value}>{value}</option>}
        </select>
      </label>
    );
  }
  // Namespaces cannot be listed: the user types the one they may read.
  return (
    <form
      class="ns-menu"
      onSubmit={(e) => {
        e.preventDefault();
        onChange(draft.trim());
      }}
    >
      <span>Namespace</span>
      <input
        aria-label="Namespace"
        placeholder="all namespaces"
        value={draft}
        onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
        onBlur={() => onChange(draft.trim())}
      />
    </form>
  );
}

export function App() {
  const route = useRoute();
  const [who, setWho] = useState<WhoAmI | undefined>(undefined);
  const [signIn, setSignIn] = useState<string | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [namespace, setNamespace] = useState(() => sessionStorage.getItem(NS_KEY) ?? "");

  useEffect(() => {
    setUnauthorizedHandler((message) => {
      storeToken(undefined);
      setWho(undefined);
      setSignIn(message);
    });
    whoAmI().then(
      (w) => setWho(w),
      (err: unknown) => {
        if (err instanceof ApiFailure && err.code === 401) setSignIn(storedToken() ? err.message : "");
        else setFailure((err as Error).message);
      },
    );
  }, []);

  const chooseNamespace = (ns: string): void => {
    sessionStorage.setItem(NS_KEY, ns);
    setNamespace(ns);
  };

  if (signIn !== undefined && !who) {
    return (
      <SignInPage
        {...(signIn ? { reason: signIn } : {})}
        onSignedIn={(w) => {
          setSignIn(undefined);
          setWho(w);
        }}
      />
    );
  }
  if (failure) {
    return (
      <div class="page">
        <div class="state-card" data-state="error">
          <h3>The dashboard cannot reach the control plane</h3>
          <p>{failure}</p>
          <button type="button" onClick={() => location.reload()}>
            Try again
          </button>
        </div>
      </div>
    );
  }
  if (!who) return <Loading what="the dashboard" />;

  const page = route.page === "workload" ? "workloads" : route.page;
  const ns = NAMESPACED.has(route.page) ? namespace || undefined : undefined;
  const user = who.username;
  let content: ComponentChild;
  switch (route.page) {
    case "workloads":
      content = <WorkloadsPage route={route} {...(ns ? { namespace: ns } : {})} user={user} />;
      break;
    case "workload":
      content = <WorkloadPage key={route.query.get("key") ?? ""} route={route} user={user} />;
      break;
    case "failover":
      content = <TimelinePage route={route} {...(ns ? { namespace: ns } : {})} user={user} />;
      break;
    case "policies":
      content = <PoliciesPage route={route} {...(ns ? { namespace: ns } : {})} user={user} />;
      break;
    case "whatif":
      content = <WhatIfPage />;
      break;
    default:
      content = <ClustersPage user={user} />;
  }

  return (
    <div class="shell">
      <nav class="topbar">
        <a class="brand" href={href("clusters")}>
          <span class="brand-mark" aria-hidden="true">
            K
          </span>
          Karmada
        </a>
        <ul class="nav">
          {NAV.map((n) => (
            <li key={n.page}>
              <a
                class={
                  page === n.page || (page === "clusters" && n.page === "clusters" && route.page === "")
                    ? "active"
                    : ""
                }
                href={href(n.page)}
              >
                {n.label}
              </a>
            </li>
          ))}
        </ul>
        <div class="topbar-side">
          {NAMESPACED.has(route.page) && <NamespaceMenu value={namespace} onChange={chooseNamespace} />}
          <span class="who" title={`${who.groups.join(", ")}\n${who.server}`} data-testid="who">
            <span class="who-label">{who.mode === "local" ? "Local admin view as" : "Signed in as"}</span>{" "}
            <strong>{who.username}</strong>
          </span>
          {who.mode === "token" && (
            <button
              type="button"
              class="signout"
              onClick={() => {
                storeToken(undefined);
                setWho(undefined);
                setSignIn("");
              }}
            >
              Sign out
            </button>
          )}
        </div>
      </nav>
      <main>{content}</main>
    </div>
  );
}
