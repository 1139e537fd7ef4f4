// Validates live answers (JSON lines: method, path, status, body) against the OpenAPI 3.1
// document with Ajv's JSON Schema 2020-12 validator: required members and additionalProperties
// as the document states them.
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { readFileSync } from "fs";
const doc = JSON.parse(readFileSync(process.argv[2], "utf8"));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(doc, "doc");
const esc = (s) => s.replaceAll("~", "~0").replaceAll("/", "~1");
let n = 0, bad = 0, nobody = 0;
for (const line of readFileSync(process.argv[3], "utf8").split("\n").filter(Boolean)) {
  const a = JSON.parse(line);
  const resp = doc.paths[a.path]?.[a.method]?.responses?.[String(a.status)];
  if (!resp) { console.log("undocumented", a.method, a.path, a.status); bad++; continue; }
  const sch = resp.content?.["application/json"]?.schema;
  if (!sch) { nobody++; continue; }
  const v = ajv.compile({ $ref: `doc#/paths/${esc(a.path)}/${a.method}/responses/${a.status}/content/application~1json/schema` });
  n++;
  if (!v(a.body)) { bad++; console.log(a.method, a.path, a.status, JSON.stringify(v.errors).slice(0, 400)); }
}
console.log(`answers: ${n} validated, ${nobody} without a body, ${bad} failing`);
if (bad > 0 || n === 0) process.exit(1);
