/**
 * Container image references split into registry, repository and tag or digest, the way
 * Karmada's imageparser does on top of distribution/reference: the grammar is Docker's, there
 * is no docker.io normalisation, and the registry is the first path segment only when it
 * looks like a host (has a `.` or `:`, or is `localhost`).
 */

// The reference grammar of distribution/reference.
const ALPHANUMERIC = "[a-z0-9]+";
const SEPARATOR = "(?:[._]|__|[-]+)";
const PATH_COMPONENT = `${ALPHANUMERIC}(?:${SEPARATOR}${ALPHANUMERIC})*`;
const REMOTE_NAME = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const HOST = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[(?:[a-fA-F0-9:]+)\\])`;
const DOMAIN_AND_PORT = `${HOST}(?::[0-9]+)?`;
const NAME = `(?:${DOMAIN_AND_PORT}/)?${REMOTE_NAME}`;
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}";

const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const ANCHORED_NAME = new RegExp(`^(?:(${DOMAIN_AND_PORT})/)?(${REMOTE_NAME})$`);
const ANCHORED_TAG = new RegExp(`^${TAG}$`);
const ANCHORED_DIGEST = new RegExp(`^${DIGEST}$`);
/** go-digest's looser digest shape, used only to choose between two error messages. */
const GO_DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

const MAX_REPOSITORY_LENGTH = 255;

export interface ImageReference {
  /** Registry host, with port; "" when the image names none. */
  hostname: string;
  repository: string;
  tag: string;
  digest: string;
}

/** The reference does not parse; the message is distribution/reference's. */
export class ImageReferenceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImageReferenceError";
  }
}

function validateDigest(digest: string): void {
  const i = digest.indexOf(":");
  if (i <= 0 || i + 1 === digest.length) throw new ImageReferenceError("invalid checksum digest format");
  const algorithm = digest.slice(0, i);
  const encoded = digest.slice(i + 1);
  const length = DIGEST_HEX_LENGTH[algorithm];
  if (length === undefined) {
    throw new ImageReferenceError(
      GO_DIGEST.test(digest) ? "unsupported digest algorithm" : "invalid checksum digest format",
    );
  }
  if (encoded.length !== length) throw new ImageReferenceError("invalid checksum digest length");
  if (!/^[a-f0-9]+$/.test(encoded)) throw new ImageReferenceError("invalid checksum digest format");
}

/** Splits a repository name into host and remote name (imageparser.SplitHostname). */
export function splitHostname(name: string): { hostname: string; repository: string } {
  const i = name.indexOf("/");
  if (i === -1) return { hostname: "", repository: name };
  const first = name.slice(0, i);
  if (!/[.:]/.test(first) && first !== "localhost") return { hostname: "", repository: name };
  return { hostname: first, repository: name.slice(i + 1) };
}

/** Parses an image reference; when it has both a tag and a digest, only the tag is kept. */
export function parseImageReference(image: string): ImageReference {
  const m = REFERENCE.exec(image);
  if (!m) {
    if (image === "") throw new ImageReferenceError("repository name must have at least one component");
    if (REFERENCE.test(image.toLowerCase()))
      throw new ImageReferenceError("repository name must be lowercase");
    throw new ImageReferenceError("invalid reference format");
  }
  const [, name = "", tag = "", digest = ""] = m;
  const path = ANCHORED_NAME.exec(name)?.[2] ?? name;
  if (path.length > MAX_REPOSITORY_LENGTH) {
    throw new ImageReferenceError(
      `repository name must not be more than ${MAX_REPOSITORY_LENGTH} characters`,
    );
  }
  if (digest) validateDigest(digest);
  return { ...splitHostname(name), tag, digest: tag ? "" : digest };
}

/** The reference as text: `[host/]repository[:tag | @digest]`. */
export function formatImageReference(ref: ImageReference): string {
  const repository = ref.hostname === "" ? ref.repository : `${ref.hostname}/${ref.repository}`;
  if (ref.tag) return `${repository}:${ref.tag}`;
  if (ref.digest) return `${repository}@${ref.digest}`;
  return repository;
}

/**
 * Sets a new tag or digest: a valid tag replaces the tag and drops the digest, a valid digest
 * replaces the digest and drops the tag, anything else changes nothing.
 */
export function withTagOrDigest(ref: ImageReference, value: string): ImageReference {
  if (ANCHORED_TAG.test(value)) return { ...ref, tag: value, digest: "" };
  if (ANCHORED_DIGEST.test(value)) return { ...ref, tag: "", digest: value };
  return ref;
}

/** The tag, or the digest when there is no tag. */
export function tagOrDigest(ref: ImageReference): string {
  return ref.tag || ref.digest;
}

/** Drops the tag, or the digest when there is no tag. */
export function withoutTagOrDigest(ref: ImageReference): ImageReference {
  return ref.tag ? { ...ref, tag: "" } : { ...ref, digest: "" };
}
