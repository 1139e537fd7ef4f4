// Validates the OpenAPI document against the OpenAPI 3.1 schema (an outside validator).
import { Validator } from "@seriousme/openapi-schema-validator";
import { readFileSync } from "fs";
const v = new Validator();
const res = await v.validate(JSON.parse(readFileSync(process.argv[2], "utf8")));
console.log(`document: OpenAPI ${v.version}, valid ${res.valid}`);
if (!res.valid) {
  console.log(JSON.stringify(res.errors, null, 1).slice(0, 3000));
  process.exit(1);
}
