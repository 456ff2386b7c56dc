import { base64url } from "../crypto";

/** `s_` and 128 random bits: public, but not guessable from any other site's ID. */
export const newTrackingId = () => `s_${base64url(crypto.getRandomValues(new Uint8Array(16)))}`;

const TRACKING_ID_SHAPE = /^s_[A-Za-z0-9_-]{22}$/;

/** A tracking ID that could exist; anything else is unknown without asking storage. */
export const isTrackingIdShaped = (value: string) => TRACKING_ID_SHAPE.test(value);
