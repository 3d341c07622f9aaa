// Precision of the two intents that end or redirect a call: a goodbye detector
// that fires on an ordinary question hangs up on a caller, and a person-request
// detector that misses a casual request makes the caller repeat themselves.
// Every example must be classified right: these are the rules' specification.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectIntent, isGoodbye, isPersonRequest } from '../../src/modules/ai/engine/intents.ts';

const PERSON_REQUESTS = [
  'Can I speak to a real person please?',
  'OPERATOR!!!',
  'representative',
  'talk to someone',
  'I want to talk to a human.',
  'Could you put me through to the manager?',
  'is there somebody there I can talk to',
  'get me a person',
  'Let me speak with Dr. Patel',
  'transfer me please',
  "I'd like to speak to the front desk",
  'agent',
  'can I just talk to Maria?',
  'let me talk to somebody in the office',
  'could you connect me with billing',
  'I need to speak with the owner',
  'put me through to sales please',
  'can you get someone from the front desk on the line',
  'get me the front desk',
  'is there a nurse I could ask a quick question?',
  'is there anyone there I can talk to?',
  "I'd rather talk to a live person",
  'can I talk with one of the mechanics',
  'could I speak to whoever is in charge',
  'I need to talk to whoever handles scheduling',
  'forward me to the service department',
  'please let me speak to someone, this is urgent',
  'can I get a human on the phone',
  'speak to the manager',
  'I want to talk to Dr. Nguyen about my results',
  'patch me through to the kitchen',
  'connect me to dispatch',
  'can you have someone on the phone for me',
  'put me over to accounts please',
  'Hi, could I talk to Jim?',
  'I need a real human being',
  'customer service please',
  'can I talk to one of your trainers',
  'yeah can I chat with someone about my order',
  'I would like to speak with the chef',
  'get a person on the line',
  'is there a technician available',
];

const NOT_PERSON_REQUESTS = [
  "I don't need to talk to anyone, what are your hours?",
  'do you speak spanish?',
  'who do I talk to about billing?',
  'can I get the office address',
  'is there parking?',
  'does anyone there speak French?',
  'ok talk to you later',
  'thanks, talk to you soon',
  'who should I speak to about a refund? is there an email?',
  'how do I talk to the doctor after hours, is there a number?',
  'do I need to talk to my insurance first?',
  'what are your hours on Saturday?',
  'how much is a cleaning?',
  'can I get a quote for a new water heater',
  'can I get a table for four tonight',
  'do you have a manager special this week?',
  'is the owner still Luis?',
  'who owns the place?',
  'who are the doctors there?',
  'is Dr. Lee working on Friday?',
  'does the trainer session cost extra?',
  'what does the receptionist need from me before my visit?',
  'can someone come out today to fix a leak?',
  'does somebody have to be home during the visit?',
  'can my friend come with me?',
  'do you have people who speak Vietnamese?',
  'how many technicians do you have?',
  'are your staff background checked?',
  'can I get my records sent over?',
  'I talked to someone yesterday about a quote, is it still good?',
  'what time does the front desk close?',
  'where is the front desk?',
  'can I pay at the front desk?',
  'do you take human insurance for pets?',
  'is the kitchen open late?',
  'I never want to be transferred, just tell me the price',
  'give me your address please',
  'get me a price on brake pads',
  'send me the menu',
  'can you send me the forms?',
  'is there a fee for a person who cancels late?',
  'what do people usually order?',
];

test('person-request detector: every request for a person is recognised', () => {
  assert.ok(PERSON_REQUESTS.length >= 40);
  const missed = PERSON_REQUESTS.filter((u) => !isPersonRequest(u) || detectIntent(u) !== 'transfer');
  assert.deepEqual(missed, []);
});

test('person-request detector: no ordinary question is taken for one', () => {
  assert.ok(NOT_PERSON_REQUESTS.length >= 40);
  assert.deepEqual(NOT_PERSON_REQUESTS.filter(isPersonRequest), []);
  assert.deepEqual(NOT_PERSON_REQUESTS.filter((u) => detectIntent(u) === 'transfer'), []);
});

const GOODBYES = [
  "Thanks, that's all I needed!",
  'ok bye',
  'Have a good one.',
  'alright that is everything, thanks, bye',
  'ok perfect, see you Tuesday then',
  'great, see you Saturday night!',
  'ok we will see you tomorrow morning',
  'see you then',
  'see ya',
  'thanks so much, goodbye',
  'bye bye',
  'no that is it, I am all set thanks',
  "nope, that's everything, take care",
  'cool, talk to you later',
  'thanks, talk soon',
  "that's all for now",
  'I think that was it',
  "I'm good, thanks",
  "no thanks, I'm all set",
  'nope',
  'no thank you',
  'cheers',
  'ok I have to go now',
  'gotta go, thanks',
  "I'll let you go, thanks for your help",
  'have a great weekend',
  'have a nice day',
  'thank you, have a good night, bye',
  "that's it, thanks",
  "alright that's everything",
  "perfect, that's all I wanted to know",
  'thanks a lot, bye now',
  'okay goodbye',
  'great thanks bye',
  "we're good, thank you",
  'awesome, see you soon',
  'ok see you next week',
  "I'm done, thank you",
  'thanks, ttyl',
  'alright, take care',
  "that's all, thank you so much",
  'ok thank you, bye!',
];

const NOT_GOODBYES = [
  'when will I see you guys, will somebody call first?',
  'could the doctor see you know, my son today?',
  'how soon can you see my dog?',
  'can you see me today?',
  'what time can I see the dentist?',
  'do you take care of cats too?',
  'who takes care of billing?',
  'is that all included in the price?',
  'is that it for the paperwork, or is there more?',
  'will I see you at the front desk when I arrive?',
  'is it all set up for wheelchair access?',
  'do you have a good deal for seniors?',
  'can I say goodbye to my dog before the surgery?',
  'what does the goodbye package include?',
  'how late are you open tonight?',
  'do you close early on Christmas Eve?',
  'hi, I have a question about your hours',
  'what are your hours on Sunday?',
  'are you open today?',
  'how much does it cost?',
  'is everything on the menu gluten free?',
  'is that everything I need to bring?',
  'where do I see you, which entrance?',
  'can I take care of the bill over the phone?',
  'are you done with my car yet?',
  'do you have a nice patio?',
  'is there a good time to call back?',
  'when do you see walk-ins?',
  'what do I do if my pipe bursts at night?',
  'can I see your menu online?',
  'how long will it take?',
  'which day can you see us next week?',
  'is the owner there today?',
  'do you guys do brunch on the weekend?',
  'are you all set up to take credit cards?',
  'will someone see me if I am late?',
  'can you take care of a clogged drain today?',
  'is this the right number for reservations?',
  'how do I cancel my membership?',
  'what is your address?',
  'do you have anything for kids?',
  'do you guys handle emergencies after dark?',
];

test('goodbye detector: every goodbye ends the call', () => {
  assert.ok(GOODBYES.length >= 40);
  // A bare "no" is a denial to the engine, which ends the call when nothing else is pending.
  const missed = GOODBYES.filter((u) => !isGoodbye(u) || !['end', 'deny'].includes(detectIntent(u)));
  assert.deepEqual(missed, []);
});

test('goodbye detector: no ordinary question hangs up on the caller', () => {
  assert.ok(NOT_GOODBYES.length >= 40);
  assert.deepEqual(NOT_GOODBYES.filter(isGoodbye), []);
  assert.deepEqual(NOT_GOODBYES.filter((u) => detectIntent(u) === 'end'), []);
});
