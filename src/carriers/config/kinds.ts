// Every carrier kind the carriers file knows, one import each: importing a kind's `kind.ts`
// (`config.ts` for sip, whose probe does not import its config) registers its section. Add a line here when adding a kind.
import '../smpp/kind.ts';
import '../sip/config.ts';
import '../whatsapp/kind.ts';
import '../http-sms/kind.ts';
import '../speech/kind.ts';
