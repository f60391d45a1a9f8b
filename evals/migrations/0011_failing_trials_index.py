"""The run page's failing trials from an index in their order (evals.selectors.FAILING_ORDER),
partial on the trials that did not pass: the page reads its 100 rows instead of sorting every
failure of the run (~6,600 at 10,000 trials)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('evals', '0010_trial_search_documents'),
        ('tickets', '0013_cjk_bigrams_by_runs'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='trialresult',
            index=models.Index(condition=models.Q(('outcome', 'pass'), _negated=True), fields=['run', 'failure_class', 'domain', 'task_id', 'persona', 'trial', 'id'], name='evals_trial_failing'),
        ),
    ]
