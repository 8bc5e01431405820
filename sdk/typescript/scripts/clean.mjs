// Remove the build outputs, so a file deleted from src/ can never linger in the package.
import { rmSync } from "node:fs";

for (const dir of ["dist", "build"]) rmSync(new URL(`../${dir}`, import.meta.url), { recursive: true, force: true });
