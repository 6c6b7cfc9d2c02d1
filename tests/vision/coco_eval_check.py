"""pycocotools' COCOeval on the files test_coco_eval.cpp writes: prints its 12 stats as JSON.

usage: coco_eval_check.py truth.json detections.json
"""
import contextlib
import io
import json
import sys

from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

with contextlib.redirect_stdout(io.StringIO()):
    truth = COCO(sys.argv[1])
    found = truth.loadRes(sys.argv[2])
    evaluation = COCOeval(truth, found, "bbox")
    evaluation.evaluate()
    evaluation.accumulate()
    evaluation.summarize()
print(json.dumps([float(s) for s in evaluation.stats]))
