"""Prompts: edit a template, check it, and try it on a real input (the Prompts page).
``templates`` lists and checks the templates, ``inputs`` says what a template's phase is tried
on, ``trials`` previews, runs and compares them."""
