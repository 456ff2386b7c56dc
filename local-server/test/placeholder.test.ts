import {it} from "vitest"; it("placeholder", ({expect}) => expect(1).toBe(1));
