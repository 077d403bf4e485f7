import type { DocumentParty } from "../../document/invoiceDocument.js";
import { taxCategoryDef, type TaxCategory } from "../../document/taxCategories.js";
import { emailOf, telephoneOf } from "../../document/contactLines.js";
import { xmlText, type XmlNode } from "./xmlText.js";

/**
 * A postal address from a party's address lines (UBL PostalAddress): the first line is the street,
 * the second an additional street line, any others one address line; the last line is `postcode
 * city` when its first word holds a digit (`20457 Hamburg`, `D02 X285 Dublin` keeps `D02` as the
 * postcode), else the city alone.
 */
export function postalAddress(party: DocumentParty): XmlNode {
  const lines = party.address.map(xmlText);
  const last = lines.length > 0 ? lines[lines.length - 1]! : "";
  const streets = lines.slice(0, -1);
  const m = /^(\S*\d\S*)\s+(.+)$/.exec(last);
  const node: XmlNode = {};
  if (streets[0]) node["cbc:StreetName"] = streets[0];
  if (streets[1]) node["cbc:AdditionalStreetName"] = streets[1];
  if (m) {
    node["cbc:CityName"] = m[2]!;
    node["cbc:PostalZone"] = m[1]!;
  } else if (last) node["cbc:CityName"] = last;
  if (streets.length > 2) node["cac:AddressLine"] = { "cbc:Line": streets.slice(2).join(", ") };
  node["cac:Country"] = { "cbc:IdentificationCode": party.country };
  return node;
}

/** The electronic address `<scheme>:<id>` as UBL's EndpointID. */
function endpoint(peppolId: string): XmlNode {
  const colon = peppolId.indexOf(":");
  return { "@schemeID": peppolId.slice(0, colon), "#": xmlText(peppolId.slice(colon + 1)) };
}

/**
 * The contact of a party from its contact lines (`contactLines`): the first e-mail line is the
 * e-mail, the first telephone line (`+49 40 1234567`, `Tel. +49 40 1234567`) the telephone, its
 * label dropped, the first other line the contact point (default: the party's name); undefined
 * without e-mail and telephone.
 */
export function ublContact(party: DocumentParty & { contact?: string[] }): XmlNode | undefined {
  const lines = party.contact ?? [];
  const emailLine = lines.find((l) => emailOf(l) !== undefined);
  const phoneLine = lines.find((l) => telephoneOf(l) !== undefined);
  if (emailLine === undefined && phoneLine === undefined) return undefined;
  const name = lines.find((l) => l !== emailLine && l !== phoneLine) ?? party.legalName;
  const node: XmlNode = { "cbc:Name": xmlText(name) };
  if (phoneLine) node["cbc:Telephone"] = xmlText(telephoneOf(phoneLine)!);
  if (emailLine) node["cbc:ElectronicMail"] = xmlText(emailOf(emailLine)!);
  return node;
}

/**
 * A party of the document (AccountingSupplierParty or AccountingCustomerParty's Party): its
 * electronic address, postal address, VAT id and registered name, and the contact of its contact
 * lines. Where the tax catalog carries no VAT ids (O, outside the scope: EN 16931 BR-O-02) they are
 * left out and the electronic address's id identifies the party instead (BR-CO-26).
 */
export function ublParty(party: DocumentParty & { contact?: string[] }, category: TaxCategory): XmlNode {
  const node: XmlNode = {};
  if (party.peppolId) node["cbc:EndpointID"] = endpoint(party.peppolId);
  const vatIds = taxCategoryDef(category).vatIds !== "none";
  if (party.peppolId && !vatIds) node["cac:PartyIdentification"] = { "cbc:ID": endpoint(party.peppolId)["#"]! };
  node["cac:PostalAddress"] = postalAddress(party);
  if (party.vatId && vatIds)
    node["cac:PartyTaxScheme"] = { "cbc:CompanyID": xmlText(party.vatId), "cac:TaxScheme": { "cbc:ID": "VAT" } };
  node["cac:PartyLegalEntity"] = { "cbc:RegistrationName": xmlText(party.legalName) };
  const contact = ublContact(party);
  if (contact) node["cac:Contact"] = contact;
  return node;
}
