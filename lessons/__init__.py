"""What the lessons measure with the mechanism: the numbers and verdicts the pages show, in numpy (explain, heads,
whatif, walkthrough, pronoun, training, training_verdicts, training_lab, training_rates, questions). One layer above attention/,
which it imports; it imports nothing else of the app's and draws nothing."""
