# Parses an SVG (or the SVGs of an HTML page) with xml.etree and prints, per
# picture, its title and the tooltip of chosen cells, so lit can FileCheck
# what the picture says and know that it is well-formed XML.
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
if path.endswith(".html"):
    svgs = [ET.fromstring(s) for s in re.findall(r"<svg .*?</svg>", text, re.S)]
else:
    root = ET.fromstring(text)
    svgs = root.findall(NS + "svg")
print("pictures:", len(svgs))
wanted = sys.argv[2:]
for svg in svgs:
    texts = [t.text for t in svg.findall(NS + "text")]
    print("title:", texts[0])
    tips = [g.find(NS + "title").text for g in svg.findall(NS + "g")]
    print("cells:", len(tips))
    for tip in tips:
        if any(tip.startswith(w + ":") for w in wanted):
            print("cell", tip)
