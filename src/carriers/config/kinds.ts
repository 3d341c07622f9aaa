// Every carrier kind the carriers file knows, one import each: importing a kind's config
// file registers its section. Add a line here when adding a kind.
import '../smpp/config.ts';
import '../sip/config.ts';
import '../whatsapp/config.ts';
import '../http-sms/config.ts';
import '../speech/config.ts';
