/** The `devDependencies` of `root`'s package.json that are not installed (empty in a developer checkout). */
export function missingDevPackages(root: string): string[];
