"""Words in English and Chinese: the catalogue, and the texts of the help summary, the review and
the rulesets' names."""
