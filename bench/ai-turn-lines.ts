// Caller lines for `npm run eval:ai-turn`, each a list of spoken segments with a pause between
// them ("|"): the pauses are mid-sentence hesitations (a caller who is not finished) or, where a
// segment is a sentence of its own, a caller who says two things. Lines without "|" are said in
// one go. TUNING is what the end-of-utterance word lists were adjusted on; HELD_OUT was written
// separately, after, and is scored as it is (never tuned on: change a word list because of it
// and it is no longer held out).

export const TUNING: string[] = [
  'What are your hours on Wednesday?',
  'Where are you located?',
  'Is there parking at your office?',
  'Okay, thanks so much. Goodbye.',
  "I'd like to book an appointment for | next Tuesday afternoon.",
  'Um | do you take | Delta Dental insurance?',
  'My daughter needs a cleaning and | maybe an x-ray too.',
  "I was wondering if | you're open on Saturdays.",
  'Can I | reschedule my appointment?',
  "I'm calling because | I have a toothache.",
  'How much does a | whitening cost?',
  'Yes.',
  'No, thank you.',
  'Can I talk to a real person please?',
  'I need to cancel my appointment.',
  "So I have a question about | uh | my bill from last month.",
  'Do you have any openings | this week?',
  "I'd like to leave a message for the | doctor.",
  "What's the address of | your downtown office?",
  'Is Doctor Patel | available on Friday?',
  'I wanted to ask about the | payment plans you offer.',
  'Hi there. | What time do you close today?',
  'We moved recently and | I need to update my address.',
  'Could you tell me | how long a filling takes?',
  'Thanks. | Bye.',
];

export const HELD_OUT: string[] = [
  'Do you see children?',
  'What is your phone number for billing?',
  'I think I chipped a tooth and | it really hurts.',
  'Are you open | on Memorial Day?',
  "I'd like to speak with | someone about my claim.",
  'My appointment is on Thursday but | I can not make it.',
  'Um | how early can I come in?',
  'How do I get to your | office from the train station?',
  'Do you offer | emergency appointments?',
  'I have a question about | the forms I need to bring.',
  'Can you send me a reminder | by text message?',
  'That works for me. | Thank you.',
  "I'm looking for a dentist who | speaks Spanish.",
  'When is the | earliest opening next week?',
  'Sure.',
  'Could I bring my son to | the same appointment?',
  'Where do I park | when I arrive?',
  'My insurance changed in January and | I want to give you the new details.',
  'Is the | office wheelchair accessible?',
  'Do you accept | credit cards?',
  'Perfect, see you then. | Goodbye.',
  'I would like to | move my cleaning to | the afternoon.',
  'How long | is a typical checkup?',
  'I need a | new patient form.',
  'Hello, | is this the dental office?',
];
