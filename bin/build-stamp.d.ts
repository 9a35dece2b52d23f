/** dist/build.json, written last by scripts/build.ts. */
export declare const BUILD_STAMP: string;
/** Whether the build in dist/ is current (see build-stamp.js); `project`: the project's folder, as a URL ending in `/`. */
export declare function compiledIsCurrent(project: URL): boolean;
