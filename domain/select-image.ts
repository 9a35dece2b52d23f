/**
 * Picks the order's image from an images catalog, by id or by vendor/product/version. `latest` is the newest
 * release image (domain/versions.ts). When a size is given it must be offered for the chosen image; `latest`
 * does not fall back to an older version that offers it (that would silently change the software).
 */
import type { Image, ImageGroup, ImageSelector } from '../schemas/index.js';
import { issue, type Issue } from './issues.js';
import { sameFamily } from './kind-map.js';
import type { Selection } from './result.js';
import { compareVersions } from './versions.js';

/** An image with the family it belongs to. */
export type CatalogImage = Image & { vendor: string; product: string };

export function selectImage(
  groups: readonly ImageGroup[],
  selector: ImageSelector,
  size?: string,
): Selection<CatalogImage> {
  const found = selector.id !== undefined ? byId(groups, selector.id) : byVersion(groups, selector);
  if (!found.ok || size === undefined) return found;
  const notOffered = sizeOfferedIssue(found.value.availableSizes, size, 'size', found.value);
  return notOffered ? { ok: false, issues: [notOffered] } : found;
}

/** The catalog's sizes for an image are the last word on what can be ordered (spec 2.6). */
export function sizeOfferedIssue(
  availableSizes: readonly string[],
  size: string,
  path: string,
  image?: CatalogImage,
): Issue | null {
  if (availableSizes.includes(size)) return null;
  const offered = availableSizes.length > 0 ? availableSizes.join(', ') : 'none';
  return issue(
    path,
    'size-not-offered',
    `size "${size}" is not offered for ${image ? `image ${describe(image)}` : 'this image'}; offered: ${offered}`,
  );
}

function byId(groups: readonly ImageGroup[], id: number): Selection<CatalogImage> {
  for (const group of groups) {
    const image = group.images.find((candidate) => candidate.id === id);
    if (image) {
      const chosen = withFamily(group, image);
      return {
        ok: true,
        value: chosen,
        warnings: chosen.releaseImage === true ? [] : [notReleaseWarning(chosen, 'image.id')],
      };
    }
  }
  return { ok: false, issues: [issue('image.id', 'image-not-found', `no image with id ${id} in the images catalog`)] };
}

function byVersion(groups: readonly ImageGroup[], selector: ImageSelector): Selection<CatalogImage> {
  const wanted = { vendor: selector.vendor ?? '', product: selector.product ?? '' };
  const family = groups.filter((group) => sameFamily(group, wanted));
  if (family.length === 0) {
    const known = groups
      .slice(0, 12)
      .map((group) => `${group.vendor} / ${group.product}`)
      .join('; ');
    return {
      ok: false,
      issues: [
        issue(
          'image',
          'image-not-found',
          `no image family vendor "${wanted.vendor}", product "${wanted.product}" in the images catalog; families: ${known || 'none'}`,
        ),
      ],
    };
  }
  const images = family.flatMap((group) => group.images.map((image) => withFamily(group, image)));
  const version = selector.version ?? 'latest';
  const warnings: Issue[] = [];
  if (version.trim().toLowerCase() === 'latest') {
    const releases = images.filter((image) => image.releaseImage === true).sort(newestFirst);
    if (releases.length === 0) {
      return {
        ok: false,
        issues: [
          issue(
            'image.version',
            'image-no-release',
            `image family ${wanted.vendor} / ${wanted.product} has no release image, so "latest" cannot be chosen; give a version (${listVersions(images)})`,
          ),
        ],
      };
    }
    return { ok: true, value: releases[0], warnings };
  }
  const exact = images.filter((image) => image.version.trim() === version.trim()).sort(newestFirst);
  if (exact.length === 0) {
    return {
      ok: false,
      issues: [
        issue(
          'image.version',
          'image-version-not-found',
          `image family ${wanted.vendor} / ${wanted.product} has no version "${version}"; versions: ${listVersions(images)}`,
        ),
      ],
    };
  }
  const chosen = exact[0];
  if (exact.length > 1)
    warnings.push(
      issue(
        'image.version',
        'image-ambiguous',
        `${exact.length} images carry version "${version}"; chose id ${chosen.id} (highest id)`,
      ),
    );
  if (chosen.releaseImage !== true) warnings.push(notReleaseWarning(chosen, 'image.version'));
  return { ok: true, value: chosen, warnings };
}

function notReleaseWarning(image: CatalogImage, path: string): Issue {
  return issue(path, 'image-not-release', `image ${describe(image)} is not a release image`);
}

function newestFirst(a: CatalogImage, b: CatalogImage): number {
  return compareVersions(b.version, a.version) || b.id - a.id;
}

function listVersions(images: readonly CatalogImage[]): string {
  const versions = [...new Set(images.map((image) => image.version))].sort((a, b) => compareVersions(b, a));
  return versions.slice(0, 10).join(', ') + (versions.length > 10 ? ', …' : '');
}

function withFamily(group: ImageGroup, image: Image): CatalogImage {
  return { ...image, vendor: group.vendor, product: group.product };
}

function describe(image: CatalogImage): string {
  return `${image.id} (${image.vendor} ${image.product} ${image.version})`;
}
