"""Each page's sections: its pictures, the words beside them and the read-outs written from the numbers.
A page script calls these; they call ui/figures/ to draw and lessons/ (through ui/view.py and serving/) to measure."""
