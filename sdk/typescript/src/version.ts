/** The package's version; a test holds it equal to package.json's. */
export const VERSION = "0.2.1";
