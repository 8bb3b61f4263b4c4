/** The dashboard's entry point, bundled by esbuild at start-up (../bundle.ts). */
import { render } from "preact";
import { App } from "./app.tsx";
import "./styles.css";

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(<App />, root);
}
