"""The site to browse: server-rendered pages of ladders, bots, matches, tournaments and
replays, plus sign-in and bot upload from the browser.

Pages read through the other apps' selectors and write through their services; they
never query on their own. Everything is plain HTML (JavaScript only draws the charts),
and every asset is served by the platform.
"""
