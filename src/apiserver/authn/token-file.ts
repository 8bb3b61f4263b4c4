/**
 * `--token-auth-file`: static bearer tokens, one CSV row each, as kube-apiserver reads them:
 * `token,user,uid[,"group1,group2"]`. Blank lines are skipped; a row with fewer than three
 * fields or an empty token or user is an error naming its line.
 */
import type { UserInfo } from "../context.ts";
import type { TokenAuthenticator } from "./authenticator.ts";

/** Splits one CSV line: quoted fields may hold commas and doubled quotes. */
export function csvFields(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    while (line[i] === " " || line[i] === "\t") i++;
    let field: string;
    if (line[i] === '"') {
      [field, i] = quotedField(line, i + 1);
      if (i < line.length && line[i] !== ",") throw new Error("extraneous text after a quoted field");
    } else {
      const end = line.indexOf(",", i);
      field = end < 0 ? line.slice(i) : line.slice(i, end);
      i = end < 0 ? line.length : end;
    }
    fields.push(field);
    if (i >= line.length) return fields;
    i++; // the comma
  }
}

/** A quoted field's text from just after its opening quote, and the index after its closing one. */
function quotedField(line: string, start: number): [string, number] {
  let field = "";
  let i = start;
  while (i < line.length) {
    if (line[i] !== '"') field += line[i++];
    else if (line[i + 1] === '"') {
      field += '"';
      i += 2;
    } else return [field, i + 1];
  }
  throw new Error("unterminated quoted field");
}

/** Parses a token file; throws an Error naming the bad line. */
export function parseTokenFile(text: string): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === "") return;
    let fields: string[];
    try {
      fields = csvFields(line);
    } catch (err) {
      throw new Error(`token file line ${index + 1}: ${(err as Error).message}`);
    }
    if (fields.length < 3) {
      throw new Error(
        `token file line ${index + 1}: want token,user,uid[,"groups"], got ${fields.length} fields`,
      );
    }
    const [token, name, uid, groups] = fields as [string, string, string, string | undefined];
    if (token === "" || name === "")
      throw new Error(`token file line ${index + 1}: token and user must not be empty`);
    const user: UserInfo = { name, groups: groups ? groups.split(",").filter((g) => g !== "") : [] };
    if (uid !== "") user.uid = uid;
    tokens.set(token, user);
  });
  return tokens;
}

export function tokenFileAuthenticator(tokens: ReadonlyMap<string, UserInfo>): TokenAuthenticator {
  return {
    name: "token-file",
    authenticate(token) {
      const user = tokens.get(token);
      return user ? { user: { ...user, groups: [...user.groups] } } : undefined;
    },
  };
}
