// Deterministic intent rules. These run before any knowledge lookup (and
// before any language model) because asking for a person, leaving a message or
// hanging up must always work, whatever the knowledge base says.

export type Intent =
  | 'transfer' // wants a person
  | 'message' // wants to leave a message / be called back
  | 'end' // goodbye, "that's all"
  | 'greeting'
  | 'thanks'
  | 'how_are_you'
  | 'identity' // "are you a robot?"
  | 'affirm'
  | 'deny'
  | 'cancel' // "never mind"
  | 'question';

/** Lower-case, straight apostrophes, punctuation to spaces, single spaces. */
export function normalizeUtterance(utterance: string): string {
  return utterance
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/\bdr\./g, 'dr')
    .replace(/[^\p{L}\p{N}'\s]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

// People (and desks) a caller may ask for. Job titles cover the usual small businesses.
const PERSON_WORDS =
  'someone|somebody|anyone|anybody|person|people|human|humans|manager|owner|boss|supervisor|receptionist|doctor|dr|' +
  'dentist|hygienist|mechanic|technician|tech|techs|vet tech|vet techs|vet|vets|veterinarian|nurse|agent|operator|representative|rep|' +
  'employee|someone else|somebody else|trainer|trainers|coach|chef|host|hostess|server|plumber|dispatcher|dispatch|' +
  'accountant|lawyer|stylist|staff member|team member|whoever|one of the \\w+|one of your \\w+|' +
  'innkeeper|innkeepers|preparer|tax preparer|cpa|bookkeeper|advisor|adviser|service advisor|service writer|consultant|groomer|' +
  'barber|colorist|therapist|instructor|teacher|pharmacist|attorney|paralegal|broker|contractor|electrician|installer|estimator|' +
  'concierge|clerk|coordinator|planner|partner|partners|specialist';
const PERSON = `(?:(?:a|an|the|your|some|any|one of your|one of the) )?(?:(?:real|live|actual) )?(?:${PERSON_WORDS}|dr \\w+|doctor \\w+)`;
const DESK = '(?:the |your )?(?:office|front desk|desk|host stand|staff|team|billing|sales|membership sales|accounts|clinic|shop|store|kitchen|service department)';
const PERSON_OR_DESK = `(?:${PERSON}|${DESK})`;

const TRANSFER_PATTERNS: RegExp[] = [
  // "talk to Carmen", "speak with whoever handles parties": anyone but "you" (that is a goodbye).
  // "Is there a doctor who can talk with her?" asks about the staff, for someone else.
  /(?<!\bwho (?:can|could|would|will) )\b(?:speak|talk|chat)(?:ing)? (?:to|with) (?!you\b|ya\b)\w/,
  new RegExp(`\\b(?:get|give|put|connect|transfer|patch|send|pass|forward) me (?:to |through to |over to |with )?${PERSON_OR_DESK}(?: real| else)?(?:$| please| now| on the| right| who|,| this| i )`),
  new RegExp(`\\b(?:get|have|put) ${PERSON_OR_DESK}(?: from ${DESK})? on the (?:line|phone)\\b`),
  new RegExp(`\\b(?:i want|i need|i'd like|id like|can i get|can i have|could i get|let me have|i wanna) (?:to (?:reach|get) )?${PERSON}(?:$| please| now| on the (?:phone|line)| to (?:talk|speak|help)| i can)`),
  // "is there someone there I can talk to": but "is there someone who speaks Spanish?" asks about the staff.
  new RegExp(`\\b(?:is there|are there|isn't there) ${PERSON} (?:there\\b(?! who)|i (?:can|could) (?:talk|speak|ask)|to (?:talk|speak)|who (?:i (?:can|could) (?:talk|speak)|(?:can|could) (?:talk|speak|help)(?: (?:to|with) me| me)?(?:$| please| now| real quick))|available|around|in\\b)`),
  // "can you put me on with Paula", "hand me off to someone", "hook me up with someone".
  /\b(?:put me on with|hand me (?:off |over )?to|hook me up with|get me over to|get me through to|send me over to) \w/,
  // "can I get Marisol on the phone": anyone named, put on the line.
  /\b(?:get|have|put) (?:\w+ ){1,2}on the (?:line|phone)\b/,
  // "could I have a word with the manager", "can I get a hold of Margaret", "get through to the mechanic".
  new RegExp(`\\b(?:have a word with|get a hold of|get ahold of|get hold of|get through to) (?!you\\b)\\w`),
  // "could you ring the owner for me", "can you get the innkeeper".
  new RegExp(`\\b(?:can|could|would) you (?:get|grab|ring|page|fetch|call) ${PERSON}(?:$| please| for me| real quick| on)`),
  // "I'd rather deal with a person", "I want a person, not a machine", "no robot please".
  /\b(?:i|i'd|id) (?:want|need|prefer|would prefer|rather have|rather deal with|would rather deal with|'d rather deal with) (?:a |an |to deal with a )?(?:real |live |actual )?(?:person|human)\b/,
  /\brather deal with (?:a |an )?(?:real |live |actual )?(?:person|human)\b/,
  /\b(?:no|not a|not an|not the|not some) (?:robot|machine|bot|computer|recording)s?\b(?! or\b)/,
  // "is the owner there?", "I'd like a word", "put Stan on please".
  new RegExp(`^(?:(?:hi|hey|um|uh|so|yeah|and) )*is ${PERSON} (?:around|in|there|available|free)(?: today| right now| now| at the moment)?(?:$| i )`),
  /\b(?:i'd like|id like|can i have|could i have) a (?:quick )?word\b(?! doc)/,
  // "put Stan on please", but not "would you put them on for me?" (brake pads) nor "put it on".
  /\bput (?!(?:it|them|those|these|that|this|one|my|a|an|the|some|new)\b)(?:\w+ ){1,2}on(?: the (?:line|phone))?(?: please| for me)?$/,
  /\b(?:transfer|connect|forward) me\b/,
  // "could I get transferred to whoever does the estimates".
  /\b(?:get|be) (?:transferred|connected|put through)\b/,
  /\b(?:put|patch) me (?:through|over)\b/,
  /\b(?:operator|representative|customer service|customer support)\b/,
  /\b(?:real|live|actual) (?:person|human|people)\b/,
  /\b(?:a|an|to|with|the) (?:\w+ )?human(?: being)?s?\b(?! resources)|^humans?(?: please)?$/,
  /^(?:an? |the )?(?:agent|person|someone|manager|receptionist)(?: please| now)?$/,
];

// "I don't need to talk to anyone" must not transfer; "who do I talk to about billing?" asks who, not for a transfer.
const NEGATED_TRANSFER =
  /\b(?:don't|dont|do not|no need to|not|never) (?:want to |need to |wanna |have to )?(?:speak|talk|chat|be transferred|transfer)\b|\b(?:who|how|where) (?:do|should|can|could|would) i (?:speak|talk|chat)\b|\bdo i (?:need|have) to (?:speak|talk)\b|\b(?:how|where) (?:do|can|could|would) i (?:get a hold|get ahold|get hold|get through)\b/;

// Someone named, asked for by name (case matters: a name is capitalised): "is Stan around?",
// "is Dr. Ruiz in today?", "is Renée available to talk?", "is Marcus working today?", "could you
// put Priya on?". After a question word the line asks about them instead: "what days is Dr. Ibarra in?".
const TITLE = '(?:(?:Dr|Mr|Mrs|Ms)\\.? )?';
const NOT_A_NAME = '(?!(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December|There|It|That|This|He|She)\\b)';
const NAMED_PERSON_REQUESTS = [
  new RegExp(`\\b(?:is|are) ${TITLE}${NOT_A_NAME}\\p{Lu}\\p{Ll}+ (?:around|in|there|available|free|working)(?: to (?:talk|chat|speak))?(?: today| right now| now| at the moment)?\\s*(?:[?.!,]|$)`, 'u'),
  new RegExp(`\\bput ${TITLE}${NOT_A_NAME}\\p{Lu}\\p{Ll}+ on\\b(?! the (?!line|phone))`, 'u'),
];
const QUESTION_WORD_BEFORE = /\b(?:what|which|when|how|where|why|who)\b[^.?!,]*$/i;

function asksForNamedPerson(utterance: string): boolean {
  return NAMED_PERSON_REQUESTS.some((pattern) => {
    const match = pattern.exec(utterance);
    return match !== null && !QUESTION_WORD_BEFORE.test(utterance.slice(0, match.index));
  });
}

const MESSAGE_PATTERNS: RegExp[] = [
  /\bleave (?:a |an |my )?(?:message|msg|voicemail|voice mail|note)\b/,
  /\btake (?:a |my )?(?:message|msg)\b/,
  /\b(?:pass|give|send) (?:on |along )?(?:a |my )?message\b/,
  /\b(?:pass|give) (?:him|her|them|\w+) (?:a |my )?message\b/,
  /\b(?:have|ask|get) (?:him|her|them|someone|somebody|dr \w+|\w+) (?:to )?(?:call|ring|phone|text) me(?: back)?\b/,
  /\b(?:call|ring|phone) me back\b/,
  // "call me back", "callback"; but "I'll call back" is the caller's own plan, a goodbye.
  /\b(?:callback|voicemail)\b|(?<!\b(?:i'll|ill|i will|we'll|we will|i can|we can|i'd|i'll just|i'll have to|i'll probably|i might|i may|and|then)) call back\b/,
];

// Farewells that end a call wherever they stand at the end of a line ("ok thanks, bye").
const FAREWELL_AT_END = /\b(?:bye|goodbye|good bye|bye bye|byebye|ttyl|cheers|take care|talk to you later|talk to you soon|talk soon|see ya|see you|see you (?:then|soon|later|there|(?:on )?(?:\w+day|tomorrow|tonight|next \w+)(?: (?:morning|afternoon|evening|night|then))?))$/;
// Closings that end the call unless the line is a question ("is that all included?").
const END_PATTERNS: RegExp[] = [
  /\bhave an? (?:good|nice|great|lovely|wonderful) (?:day|one|night|evening|weekend|afternoon)\b/,
  /\b(?:that's|thats|that is|that was) (?:all|it|everything)\b/,
  /^(?:no|nope|nah|no no)(?: thanks| thank you| that's it| i'm good| im good| i'm all set| im all set)?$/,
  /\b(?:i'm|im|i am|we're|were|we are) (?:all set|good|done)(?: thanks| thank you)?$/,
  /\b(?:hang up|hanging up|i'll let you go|ill let you go|gotta go|got to go|have to go)\b/,
  /\b(?:bye|goodbye|bye bye)\b/,
  // The caller will come back to it themselves: "I'll think about it and call back", "I'll get back to you".
  /\b(?:i'll|ill|i will|we'll|we will) (?:(?:just|probably|have to) )?(?:think (?:about it|it over)(?: and)? )?(?:call (?:you )?back|give you a call|get back to you|think about it|think it over)\b/,
];
// A line asking something is not a goodbye, even with "see you" in it ("when will I see you guys?").
const QUESTION_LINE = /^(?:(?:ok|okay|so|and|hey|um|uh|oh|well|also|alright|great|cool|hi|hello|yeah) )*(?:when|what|what's|whats|where|where's|how|who|why|which|can|could|do|does|did|is|are|was|will|would|should|may|if)\b/;

export function isGoodbye(utterance: string): boolean {
  const text = normalizeUtterance(utterance);
  const asks = /\?\s*$/.test(utterance.trim());
  // "... should I come see you tomorrow?" ends like a farewell, but its last clause asks something.
  if (FAREWELL_AT_END.test(text) && !(asks && QUESTION_LINE.test(lastClause(utterance)))) return true;
  if (asks || QUESTION_LINE.test(text)) return false;
  return END_PATTERNS.some((p) => p.test(text));
}

function lastClause(utterance: string): string {
  return normalizeUtterance(utterance.split(/[,.;!]/).pop() ?? utterance);
}

/** Asks for a person (and does not say the opposite). */
export function isPersonRequest(utterance: string): boolean {
  const text = normalizeUtterance(utterance);
  return !NEGATED_TRANSFER.test(text) && (TRANSFER_PATTERNS.some((p) => p.test(text)) || asksForNamedPerson(utterance));
}

// Small talk is recognised only when the whole utterance is small talk, so
// "hey, do you guys do tune-ups?" stays a question.
const GREETING = /^(?:hi|hello|hey|hiya|howdy|yo|good (?:morning|afternoon|evening)|hi there|hello there|hey there)(?: there)?$/;
const THANKS = /^(?:(?:ok|okay|great|perfect|awesome|cool|alright|all right|got it|good|nice) )*(?:thanks|thank you|thank you so much|thanks so much|thanks a lot|many thanks|much appreciated|appreciate it|ty)(?: very much| so much| a lot)?$/;
const HOW_ARE_YOU = /^(?:(?:hi|hello|hey) )?(?:how are you|how are you doing|how's it going|hows it going|how you doing|how are things)(?: today)?$/;
const IDENTITY = /\b(?:are you (?:a |an )?(?:robot|bot|machine|computer|ai|real|human|person|recording)|who (?:am i|is this|are you) (?:talking|speaking) (?:to|with)|who is this|who are you|what are you)\b/;
const AFFIRM = /^(?:yes|yeah|yep|yup|sure|ok|okay|please|yes please|sure thing|absolutely|of course|definitely|that would be great|sounds good|go ahead|alright|all right)(?: please| thanks| thank you)?$/;
const DENY = /^(?:no|nope|nah|no thanks|no thank you|not really|not now)$/;
const CANCEL = /\b(?:never ?mind|nevermind|forget it|cancel that|scratch that)\b/;

export function detectIntent(utterance: string): Intent {
  const text = normalizeUtterance(utterance);
  if (text === '') return 'question';
  if (isPersonRequest(utterance)) return 'transfer';
  if (MESSAGE_PATTERNS.some((p) => p.test(text))) return 'message';
  if (CANCEL.test(text)) return 'cancel';
  if (DENY.test(text)) return 'deny';
  if (isGoodbye(utterance)) return 'end';
  if (GREETING.test(text)) return 'greeting';
  if (THANKS.test(text)) return 'thanks';
  if (HOW_ARE_YOU.test(text)) return 'how_are_you';
  if (IDENTITY.test(text)) return 'identity';
  if (AFFIRM.test(text)) return 'affirm';
  return 'question';
}

/**
 * When a caller says "I'd like to leave a message for Dr. Patel saying I'll be
 * late", the message is already there: returns it so the engine need not ask.
 */
export function extractInlineMessage(utterance: string): string | null {
  const match =
    /\b(?:leave|take|pass on|pass along|give)\b[^.?!]*?\bmessage\b(?: for [^,:]+?)?(?:[,:]\s*|\s+(?:saying|that says|that|to say)\s+)(.+)$/i.exec(
      utterance.trim(),
    );
  const message = match?.[1]?.trim().replace(/^["“]|["”]$/g, '') ?? '';
  return message.split(/\s+/).length >= 3 ? message : null;
}
